#include "CHidraw.h"
#include <linux/hidraw.h>
#include <string.h>
#include <sys/ioctl.h>

int chidraw_descriptor(int fd, uint8_t *descriptor, size_t size) {
    int length = 0;
    if (ioctl(fd, HIDIOCGRDESCSIZE, &length) < 0) return -1;
    struct hidraw_report_descriptor report;
    memset(&report, 0, sizeof report);
    report.size = length;
    if (ioctl(fd, HIDIOCGRDESC, &report) < 0) return -1;
    size_t copied = report.size < size ? report.size : size;
    memcpy(descriptor, report.value, copied);
    return (int)copied;
}

int chidraw_info(int fd, uint32_t *bustype, uint16_t *vendor, uint16_t *product) {
    struct hidraw_devinfo info;
    int result = ioctl(fd, HIDIOCGRAWINFO, &info);
    if (result >= 0) {
        *bustype = info.bustype;
        *vendor = (uint16_t)info.vendor;
        *product = (uint16_t)info.product;
    }
    return result;
}
