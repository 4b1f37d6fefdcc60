// Forwards winscard.h's #include <pcsclite.h> to /usr/include/PCSC (see shim.h).
#include <PCSC/pcsclite.h>
