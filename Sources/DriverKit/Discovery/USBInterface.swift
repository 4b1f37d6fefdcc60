import Foundation

/// A USB device's interfaces as sysfs shows them now: number, class, and the kernel driver
/// bound to each. Read when asked, never kept: drivers bind after the device is reported.
package struct USBInterface: Sendable, Equatable {
    package var number: UInt8
    package var interfaceClass: UInt8
    /// The kernel driver bound to it (`usbhid`, `cdc_acm`, `ftdi_sio`, `usbfs` for a program's claim).
    package var driver: String?

    /// A vendor-specific interface (class 0xff): a scanner's vendor mode.
    package var isVendorSpecific: Bool { interfaceClass == 0xFF }

    /// The interfaces of the USB device at `port` (`1-2.3`), in number order; empty when sysfs
    /// does not have it.
    package static func of(port: String, sysfs: String = "/sys/bus/usb/devices") -> [USBInterface] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: sysfs)) ?? []
        return names.filter { $0.hasPrefix(port + ":") }.compactMap { name in
            let folder = "\(sysfs)/\(name)"
            guard let number = hexAttribute(folder, "bInterfaceNumber"), let type = hexAttribute(folder, "bInterfaceClass")
            else { return nil }
            let driver = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(folder)/driver")
            return USBInterface(
                number: number, interfaceClass: type, driver: driver.map { ($0 as NSString).lastPathComponent })
        }.sorted { $0.number < $1.number }
    }

    private static func hexAttribute(_ folder: String, _ name: String) -> UInt8? {
        guard let text = try? String(contentsOfFile: "\(folder)/\(name)", encoding: .utf8) else { return nil }
        return UInt8(text.trimmingCharacters(in: .whitespacesAndNewlines), radix: 16)
    }
}
