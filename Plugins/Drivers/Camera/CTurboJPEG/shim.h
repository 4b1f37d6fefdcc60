// libjpeg-turbo's TurboJPEG API, as it is, for the V4L2 camera's MJPEG frames (Debian
// package libturbojpeg0-dev): decoded straight to grayscale, the chroma never computed.
#include <turbojpeg.h>
