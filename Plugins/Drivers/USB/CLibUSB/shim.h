// libusb-1.0, for scanners no kernel driver binds (Debian package libusb-1.0-0-dev).
#include <libusb.h>

// libusb_set_option is variadic, which Swift cannot call. Every context made after this
// call skips libusb's own device scan and hotplug thread: the daemon finds devices through
// udev and hands libusb the device node it opened (libusb_wrap_sys_device).
static inline int scanbridge_libusb_skip_discovery(void) {
    return libusb_set_option(NULL, LIBUSB_OPTION_NO_DEVICE_DISCOVERY);
}
