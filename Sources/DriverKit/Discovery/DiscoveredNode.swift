/// A device node udev (or sysfs) knows of: what it is and which USB device it belongs to.
package struct DiscoveredNode: Sendable, Equatable, Hashable {
    /// `input`, `hidraw`, `tty`, `video4linux`, `usb` (a USB device itself, `/dev/bus/usb/…`).
    package var subsystem: String
    /// `/dev/input/event5`.
    package var devnode: String
    /// `event5`.
    package var sysname: String
    package var vendorId: UInt16?
    package var productId: UInt16?
    /// The USB serial number, when the device has one.
    package var serial: String?
    /// The USB port path (`1-2.3`): stable for a device without a serial on the same port.
    package var portPath: String?
    /// The USB interface number of the node (`00`), for devices with several.
    package var interface: String?
    /// The device's name (an input device's `name` attribute, else the USB product string).
    package var name: String?
    /// udev's `ID_INPUT_KEYBOARD`, or for want of udevd, an input device with letter keys.
    package var isKeyboard: Bool
    /// For a video4linux node: whether udev's `ID_V4L_CAPABILITIES` says `:capture:`; nil
    /// when udev has not said (no udevd), and only opening the node can tell.
    package var isVideoCapture: Bool?
    /// Where a device not on USB sits (`platform-vivid.0`, `pci-0000:03:00.0`): its parent's
    /// subsystem and name, as udev's `ID_PATH` writes them; with a video node's `index`
    /// (`#1`) when not its device's first node.
    package var busPath: String?

    package init(
        subsystem: String, devnode: String, sysname: String, vendorId: UInt16? = nil, productId: UInt16? = nil,
        serial: String? = nil, portPath: String? = nil, interface: String? = nil, name: String? = nil, isKeyboard: Bool = false
    ) {
        self.subsystem = subsystem
        self.devnode = devnode
        self.sysname = sysname
        self.vendorId = vendorId
        self.productId = productId
        self.serial = serial
        self.portPath = portPath
        self.interface = interface
        self.name = name
        self.isKeyboard = isKeyboard
    }

    /// A stable device id for `driver`: `DRIVER:vvvv:pppp:SERIAL`, else `DRIVER:vvvv:pppp@PORT`
    /// (the same physical device on the same port), else `DRIVER:` and where the device sits
    /// (`busPath`), else `DRIVER:` and the node's name. An
    /// interface number is added when not the first (`…#01`), for devices with several nodes.
    package func deviceID(driver: String) -> String {
        guard let product = usbProduct else { return "\(driver):\(busPath ?? sysname)" }
        var id = "\(driver):\(product)"
        if let serial = serial.map(Self.sanitized), !serial.isEmpty {
            id += ":" + serial
        } else if let portPath {
            id += "@" + portPath
        } else {
            id += "@" + sysname
        }
        if let interface, interface != "00" { id += "#" + interface }
        return id
    }

    /// Letters, digits, `.`, `-` and `_` of a serial; the rest becomes `_`.
    static func sanitized(_ text: String) -> String {
        String(
            text.unicodeScalars.map { scalar -> Character in
                scalar.isASCII
                    && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || ".-_".unicodeScalars.contains(scalar))
                    ? Character(scalar) : "_"
            })
    }
}
