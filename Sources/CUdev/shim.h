// libudev, as it is, for device discovery and hotplug (Debian package libudev-dev).
#include <libudev.h>
