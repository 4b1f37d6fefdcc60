// libpng, as it is, for the file camera's PNG frames (Debian package libpng-dev); its
// simplified API (png_image) reads a file straight to 8-bit grayscale.
#include <png.h>
