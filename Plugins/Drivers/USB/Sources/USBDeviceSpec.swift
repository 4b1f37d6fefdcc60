package import DriverKit

/// A USB device to read through libusb, as `--device usb:VID:PID[:SERIAL],interface=N[,KEY=VALUE…]`
/// names it: a scanner in a vendor mode, which no kernel driver binds, or one whose
/// interface is taken from its kernel driver (`detach=on`).
///
/// Settings: `interface` (required), `endpoint` (the IN endpoint, `0x81` to `0x8f`; default:
/// the interface's first interrupt or bulk IN endpoint), `detach` (switch, default off: take
/// the interface from a kernel driver that has it, and give it back on release),
/// `packet_header` (bytes at the start of every packet that are not data, 0 to 64: an FTDI
/// chip's two status bytes), and the framing of the serial driver: `suffix`, `idle`, `prefix`.
/// An interface that is a HID boot keyboard is decoded as a wedge scanner's keys instead:
/// `layout` and `max_gap` as for the evdev driver, with the same `idle`.
package struct USBDeviceSpec: Sendable, Equatable {
    package var vendorId: UInt16
    package var productId: UInt16
    /// Only the device with this USB serial number; nil for any of the product.
    package var serial: String?
    package var interface: UInt8
    package var endpoint: UInt8?
    package var detach: Bool
    package var packetHeader: Int
    package var framing: ByteFramer.Settings
    /// How a boot keyboard's keys are decoded, should the interface be one.
    package var keyboard: KeyboardSpec

    package static let settingNames =
        ["interface", "endpoint", "detach", "packet_header"] + ByteFramer.Settings.names + ["layout", "max_gap"]

    /// - Parameter path: what follows `usb:` up to the first comma (`0403:6001`, `0403:6001:A1B2C3`).
    package init(path: String, settings: [String: String] = [:]) throws(USBError) {
        let parts = path.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, let vendor = Self.hexID(parts[0]), let product = Self.hexID(parts[1]) else {
            throw .badSetting("a USB device is named VID:PID[:SERIAL] in hex (usb:0403:6001), not '\(path)'")
        }
        vendorId = vendor
        productId = product
        serial = parts.count == 3 ? String(parts[2]) : nil
        if serial?.isEmpty == true { throw .badSetting("the serial after VID:PID is empty in '\(path)'") }
        do throws(DeviceSettingError) {
            let given = try DeviceSettings(settings, known: Self.settingNames, device: "a USB device")
            guard given["interface"] != nil else {
                throw DeviceSettingError("a USB device needs interface=N: the interface to read (lsusb -v lists them)")
            }
            interface = UInt8(try given.integer("interface", default: 0, in: 0...255, unit: "an interface number"))
            if let text = given["endpoint"] {
                guard let address = Self.hexByte(text), (0x81...0x8F).contains(address) else {
                    throw DeviceSettingError("endpoint takes an IN endpoint address from 0x81 to 0x8f, not '\(text)'")
                }
                endpoint = address
            }
            detach = try given.flag("detach", default: false, words: "on or off")
            packetHeader = try given.integer("packet_header", default: 0, in: 0...64, unit: "bytes")
            framing = try ByteFramer.Settings(given)
        } catch {
            throw .badSetting(error.description)
        }
        keyboard = try Self.keyboard(settings)
    }

    /// A keyboard's settings: checked as the evdev driver checks them when `layout` or
    /// `max_gap` is given; else the defaults, with `idle` when it suits them (an `idle`
    /// shorter than a keyboard's key gap is a byte device's, and is not refused for it).
    private static func keyboard(_ settings: [String: String]) throws(USBError) -> KeyboardSpec {
        let named = settings["layout"] != nil || settings["max_gap"] != nil
        let keys = KeyboardSpec.settingNames.reduce(into: [String: String]()) { $0[$1] = settings[$1] }
        do {
            return try KeyboardSpec(DeviceSettings(keys, known: KeyboardSpec.settingNames, device: "a USB device"))
        } catch {
            guard !named else { throw .badSetting("\(error)") }
            return KeyboardSpec()
        }
    }

    /// Refuses two specs that could name one device: the driver reads one interface of a device.
    package static func checkOneInterfaceEach(_ specs: [USBDeviceSpec]) throws(USBError) {
        for (index, spec) in specs.enumerated() {
            for other in specs[..<index]
            where other.vendorId == spec.vendorId && other.productId == spec.productId
                && (other.serial == nil || spec.serial == nil || other.serial == spec.serial)
            {
                throw .badSetting(
                    "two USB devices named could be one (\(spec.vendorId.usbID):\(spec.productId.usbID)): the usb driver reads one interface of a device; give each its serial"
                )
            }
        }
    }

    /// Whether `node` is the USB device this names.
    package func matches(_ node: DiscoveredNode) -> Bool {
        node.subsystem == "usb" && node.vendorId == vendorId && node.productId == productId
            && (serial == nil || node.serial == serial)
    }

    private static func hexID(_ text: Substring) -> UInt16? {
        text.count == 4 && text.allSatisfy(\.isHexDigit) ? UInt16(text, radix: 16) : nil
    }

    private static func hexByte(_ text: String) -> UInt8? {
        let digits = text.lowercased().hasPrefix("0x") ? text.dropFirst(2) : text[...]
        return (1...2).contains(digits.count) && digits.allSatisfy(\.isHexDigit) ? UInt8(digits, radix: 16) : nil
    }
}

/// What can go wrong with a USB device's settings, in words an operator can act on.
package enum USBError: Error, Equatable, CustomStringConvertible {
    case badSetting(String)

    package var description: String {
        switch self {
        case .badSetting(let sentence): sentence
        }
    }
}
