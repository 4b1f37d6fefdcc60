// The evdev ioctls Swift cannot import (function-like macros in linux/input.h), for the
// keyboard-wedge driver. Each returns what ioctl returns: -1 with errno on failure,
// which is what a FIFO or pty fed by a test gives, and the driver takes softly.
#include <stdint.h>
#include <stddef.h>

/// EVIOCGRAB: 1 makes this fd the device's only reader, 0 lets go.
int cevdev_grab(int fd, int on);
/// EVIOCGNAME: the device's name, NUL-terminated in `name`.
int cevdev_name(int fd, char *name, size_t size);
/// EVIOCGUNIQ: the device's unique id (a USB serial), when it has one.
int cevdev_unique(int fd, char *unique, size_t size);
/// EVIOCGPHYS: the physical path (usb-0000:00:14.0-2/input0).
int cevdev_physical(int fd, char *phys, size_t size);
/// EVIOCGID: bus type, vendor, product and version.
int cevdev_id(int fd, uint16_t *bustype, uint16_t *vendor, uint16_t *product, uint16_t *version);
/// EVIOCGKEY: a bitmap of the keys down now (KEY_MAX/8+1 bytes), for a resync after SYN_DROPPED.
int cevdev_keys_down(int fd, uint8_t *bits, size_t size);
/// EVIOCGBIT(EV_KEY): a bitmap of the keys the device has.
int cevdev_key_bits(int fd, uint8_t *bits, size_t size);
/// EVIOCSCLOCKID(CLOCK_MONOTONIC): event times from the monotonic clock, not wall time.
int cevdev_monotonic_clock(int fd);
