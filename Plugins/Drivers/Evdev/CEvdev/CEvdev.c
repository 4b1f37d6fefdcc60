#include "CEvdev.h"
#include <linux/input.h>
#include <sys/ioctl.h>
#include <time.h>

int cevdev_grab(int fd, int on) { return ioctl(fd, EVIOCGRAB, on); }

int cevdev_name(int fd, char *name, size_t size) { return ioctl(fd, EVIOCGNAME(size), name); }

int cevdev_unique(int fd, char *unique, size_t size) { return ioctl(fd, EVIOCGUNIQ(size), unique); }

int cevdev_physical(int fd, char *phys, size_t size) { return ioctl(fd, EVIOCGPHYS(size), phys); }

int cevdev_id(int fd, uint16_t *bustype, uint16_t *vendor, uint16_t *product, uint16_t *version) {
    struct input_id id;
    int result = ioctl(fd, EVIOCGID, &id);
    if (result >= 0) {
        *bustype = id.bustype;
        *vendor = id.vendor;
        *product = id.product;
        *version = id.version;
    }
    return result;
}

int cevdev_keys_down(int fd, uint8_t *bits, size_t size) { return ioctl(fd, EVIOCGKEY(size), bits); }

int cevdev_key_bits(int fd, uint8_t *bits, size_t size) { return ioctl(fd, EVIOCGBIT(EV_KEY, size), bits); }

int cevdev_monotonic_clock(int fd) {
    int clock = CLOCK_MONOTONIC;
    return ioctl(fd, EVIOCSCLOCKID, &clock);
}
