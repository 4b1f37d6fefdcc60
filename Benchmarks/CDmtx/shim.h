// libdmtx, as it is, for the camera driver's Data Matrix decoding: zbar has none
// (Debian package libdmtx-dev).
#include <dmtx.h>
