import CUdev
import Foundation

/// Reads a libudev device into a `DiscoveredNode`: its node, and the USB device and
/// interface above it (sysfs attributes, so it works without udevd's database too).
enum UdevDevice {
    static func node(_ device: OpaquePointer) -> DiscoveredNode? {
        guard let devnode = string(udev_device_get_devnode(device)),
            let subsystem = string(udev_device_get_subsystem(device)),
            let sysname = string(udev_device_get_sysname(device))
        else { return nil }
        // During a port reset the kernel reports the USB device at address 0, where every
        // device sits while it is being addressed, then at its own again: not a device.
        if subsystem == "usb", string(udev_device_get_property_value(device, "DEVNUM")) == "000" { return nil }
        var node = DiscoveredNode(subsystem: subsystem, devnode: devnode, sysname: sysname)
        // A USB device's own node (`/dev/bus/usb/001/004`, the `usb` driver's) is its own USB device.
        let usbDevice = subsystem == "usb" ? device : udev_device_get_parent_with_subsystem_devtype(device, "usb", "usb_device")
        if let usb = usbDevice {
            node.vendorId = attribute(usb, "idVendor").flatMap { UInt16($0, radix: 16) }
            node.productId = attribute(usb, "idProduct").flatMap { UInt16($0, radix: 16) }
            node.serial = attribute(usb, "serial")
            node.portPath = string(udev_device_get_sysname(usb))
            node.name = attribute(usb, "product")
        }
        if let interface = udev_device_get_parent_with_subsystem_devtype(device, "usb", "usb_interface") {
            node.interface = attribute(interface, "bInterfaceNumber")
        }
        if subsystem == "input" {
            // event5's parent is input12, which has the name and the key capabilities.
            let input = udev_device_get_parent(device)
            if let input, let name = attribute(input, "name") { node.name = name }
            if node.vendorId == nil, let input {
                // Not on USB (uinput, Bluetooth, i8042): the input device's own ids.
                node.vendorId = attribute(input, "id/vendor").flatMap { UInt16($0, radix: 16) }
                node.productId = attribute(input, "id/product").flatMap { UInt16($0, radix: 16) }
                node.serial = attribute(input, "uniq").flatMap { $0.isEmpty ? nil : $0 }
            }
            if let keyboard = string(udev_device_get_property_value(device, "ID_INPUT_KEYBOARD")) {
                node.isKeyboard = keyboard == "1"
            } else if let input, let keys = attribute(input, "capabilities/key") {
                node.isKeyboard = hasLetterKeys(keys)
            }
        }
        if subsystem == "video4linux" { video(device, into: &node) }
        return node
    }

    /// A video node's capture capability (udev's, when udevd has said) and, off USB, where
    /// its device sits; both from sysfs alone where udevd does not run.
    private static func video(_ device: OpaquePointer, into node: inout DiscoveredNode) {
        if let capabilities = string(udev_device_get_property_value(device, "ID_V4L_CAPABILITIES")) {
            node.isVideoCapture = capabilities.contains(":capture:")
        }
        guard node.vendorId == nil, let parent = udev_device_get_parent(device),
            let subsystem = string(udev_device_get_subsystem(parent)), let name = string(udev_device_get_sysname(parent))
        else { return }
        // One device may have several video nodes (vivid: capture, output, VBI…); `index` numbers them.
        let index = attribute(device, "index").flatMap { Int($0) } ?? 0
        node.busPath = "\(subsystem)-\(name)" + (index > 0 ? "#\(index)" : "")
    }

    /// Every node of `subsystems` sysfs has now.
    static func list(_ udev: OpaquePointer, subsystems: [String]) -> [DiscoveredNode] {
        guard let enumerate = udev_enumerate_new(udev) else { return [] }
        defer { udev_enumerate_unref(enumerate) }
        for subsystem in subsystems { udev_enumerate_add_match_subsystem(enumerate, subsystem) }
        udev_enumerate_scan_devices(enumerate)
        var nodes: [DiscoveredNode] = []
        var entry = udev_enumerate_get_list_entry(enumerate)
        while let current = entry {
            if let path = udev_list_entry_get_name(current), let device = udev_device_new_from_syspath(udev, path) {
                if let node = node(device) { nodes.append(node) }
                udev_device_unref(device)
            }
            entry = udev_list_entry_get_next(current)
        }
        return nodes
    }

    /// Whether a `capabilities/key` bitmap (hex words, most significant first) has KEY_A
    /// (30) to KEY_L: a keyboard, as udev's input_id builtin would say.
    static func hasLetterKeys(_ bitmap: String) -> Bool {
        guard let last = bitmap.split(separator: " ").last, let word = UInt64(last, radix: 16) else { return false }
        let letters: UInt64 = 0b1_1111_1111 << 30  // KEY_A (30) … KEY_L (38)
        return word & letters == letters
    }

    static func attribute(_ device: OpaquePointer, _ name: String) -> String? {
        string(udev_device_get_sysattr_value(device, name))?.trimmingCharacters(in: .whitespaces)
    }

    static func string(_ pointer: UnsafePointer<CChar>?) -> String? {
        pointer.map { String(cString: $0) }
    }
}
