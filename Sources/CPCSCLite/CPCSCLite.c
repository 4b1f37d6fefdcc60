// The module is headers only (include/shim.h); SwiftPM wants a source file in a C target.
#include "shim.h"
