// The hidraw ioctls Swift cannot import (function-like macros in linux/hidraw.h), for the
// HID POS driver. Each returns what ioctl returns: -1 with errno on failure, which is what a
// FIFO fed by a test gives, and the driver takes softly.
#include <stdint.h>
#include <stddef.h>

/// HIDIOCGRDESCSIZE + HIDIOCGRDESC: the report descriptor into `descriptor` (up to 4096
/// bytes). Returns its length, or -1 with errno.
int chidraw_descriptor(int fd, uint8_t *descriptor, size_t size);
/// HIDIOCGRAWINFO: bus type, vendor and product.
int chidraw_info(int fd, uint32_t *bustype, uint16_t *vendor, uint16_t *product);
