import CUdev
import Foundation
import Glibc

/// Finds the USB device behind a device the daemon lists, for a port reset: through the
/// device node it reads (any node below the USB device), or, for a card reader pcscd reads,
/// by its USB serial and ids among the USB devices sysfs lists. Blocking (libudev, sysfs):
/// off the cooperative pool.
package enum USBDeviceFinder {
    /// A USB device: its node in `/dev/bus/usb`, its `vvvv:pppp` and its port (`1-2.3`).
    package struct Found: Sendable, Equatable {
        package var devnode: String
        package var product: String
        package var port: String
    }

    /// The USB device above the character device at `path` (`/dev/input/event5`, a by-id link,
    /// `/dev/bus/usb/001/004` itself); nil when `path` is no device node, or not on USB.
    package static func device(above path: String) -> Found? {
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFCHR else { return nil }
        return withUdev { udev in
            guard let device = udev_device_new_from_devnum(udev, CChar(UInt8(ascii: "c")), status.st_rdev) else { return nil }
            defer { udev_device_unref(device) }
            let usb =
                UdevDevice.string(udev_device_get_devtype(device)) == "usb_device"
                ? device : udev_device_get_parent_with_subsystem_devtype(device, "usb", "usb_device")
            return usb.flatMap(found)
        }
    }

    /// The USB devices with `serial` (when given) and the ids (when given) that have an
    /// interface of class `interfaceClass` (0x0b: a smart-card reader).
    package static func devices(serial: String?, vendorId: UInt16?, productId: UInt16?, interfaceClass: UInt8) -> [Found] {
        withUdev { udev in
            guard let enumerate = udev_enumerate_new(udev) else { return [] }
            defer { udev_enumerate_unref(enumerate) }
            udev_enumerate_add_match_subsystem(enumerate, "usb")
            udev_enumerate_add_match_property(enumerate, "DEVTYPE", "usb_device")
            udev_enumerate_scan_devices(enumerate)
            var matches: [Found] = []
            var entry = udev_enumerate_get_list_entry(enumerate)
            while let current = entry {
                entry = udev_list_entry_get_next(current)
                guard let path = udev_list_entry_get_name(current), let device = udev_device_new_from_syspath(udev, path)
                else { continue }
                defer { udev_device_unref(device) }
                guard let candidate = found(device) else { continue }
                if let serial, UdevDevice.attribute(device, "serial") != serial { continue }
                if let vendorId, let productId, candidate.product != "\(vendorId.usbID):\(productId.usbID)" { continue }
                guard USBInterface.of(port: candidate.port).contains(where: { $0.interfaceClass == interfaceClass }) else {
                    continue
                }
                matches.append(candidate)
            }
            return matches
        } ?? []
    }

    private static func found(_ usb: OpaquePointer) -> Found? {
        guard let devnode = UdevDevice.string(udev_device_get_devnode(usb)),
            let port = UdevDevice.string(udev_device_get_sysname(usb)),
            let vendor = UdevDevice.attribute(usb, "idVendor"), let product = UdevDevice.attribute(usb, "idProduct")
        else { return nil }
        return Found(devnode: devnode, product: "\(vendor):\(product)", port: port)
    }

    private static func withUdev<T>(_ body: (OpaquePointer) -> T?) -> T? {
        guard let udev = udev_new() else { return nil }
        defer { udev_unref(udev) }
        return body(udev)
    }
}
