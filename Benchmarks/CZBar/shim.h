// libzbar, as it is, for the camera driver's barcode and QR decoding (Debian package
// libzbar-dev). Only Y800/GREY frames are accepted: any other format, GRAY included, fails.
#include <zbar.h>
