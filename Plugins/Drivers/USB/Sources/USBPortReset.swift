import CLibUSB
import Glibc

/// A USB port reset (`libusb_reset_device`): what unplugging and plugging the device in
/// again does, from software, for a reader or scanner wedged after an electrostatic hit or
/// a firmware hiccup. Blocking (the reset takes a while): off the cooperative pool.
package enum USBPortReset {
    package enum Outcome: Sendable, Equatable {
        /// The device kept its address; its drivers went on (those that cannot were rebound).
        case reset
        /// Its descriptors changed, or it did not come back as it was: it is enumerated anew,
        /// under another node, which discovery follows.
        case reenumerated
    }

    /// Resets the USB device whose node is `devnode` (`/dev/bus/usb/001/004`); a sentence
    /// saying why it could not.
    package static func reset(devnode: String) -> Result<Outcome, USBResetFailure> {
        let fd = open(devnode, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else {
            return .failure(USBResetFailure("cannot open \(devnode): \(String(cString: strerror(errno)))"))
        }
        defer { close(fd) }
        _ = USBLibrary.ready
        var made: OpaquePointer?
        let started = libusb_init(&made)
        guard started == 0, let context = made else {
            return .failure(USBResetFailure("libusb cannot start: \(usbErrorText(started))"))
        }
        defer { libusb_exit(context) }
        var opened: OpaquePointer?
        let wrapped = libusb_wrap_sys_device(context, Int(fd), &opened)
        guard wrapped == 0, let handle = opened else {
            return .failure(USBResetFailure("libusb cannot use \(devnode): \(usbErrorText(wrapped))"))
        }
        defer { libusb_close(handle) }
        switch libusb_reset_device(handle) {
        case 0: return .success(.reset)
        case LIBUSB_ERROR_NOT_FOUND.rawValue, LIBUSB_ERROR_NO_DEVICE.rawValue: return .success(.reenumerated)
        case let failed: return .failure(USBResetFailure("the reset of \(devnode) failed: \(usbErrorText(failed))"))
        }
    }
}

/// Why a USB device could not be reset, in a sentence.
package struct USBResetFailure: Error, Equatable, CustomStringConvertible {
    package let description: String

    init(_ description: String) {
        self.description = description
    }
}
