// Forwards pcsclite.h's #include <wintypes.h> to /usr/include/PCSC (see shim.h).
#include <PCSC/wintypes.h>
