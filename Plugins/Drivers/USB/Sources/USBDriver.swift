package import DriverKit
package import Logging
package import ScanBridgeCore
import ScanBridgeModel

/// Scanners that no kernel driver reads: a scanner left in a vendor-specific USB mode has no
/// device node of its own (no keyboard, hidraw or tty), so the daemon reads its interface
/// through libusb. Each device named with `--device usb:VID:PID[:SERIAL],interface=N` is
/// found and followed through udev (its `/dev/bus/usb` node), read on a thread of its own
/// while it is plugged in, and every read it sends becomes one `barcode` read.
///
/// With discovery on, the USB devices of scanner makers (and those claimed) are also listed
/// by `devices.candidates`, with what their interfaces need: a vendor mode this driver reads
/// once named, or kernel drivers the other drivers read through.
package final class USBDriver: DeviceDriver {
    package static let driverName = "usb"
    package let name = USBDriver.driverName
    private let devices: [USBDeviceSpec]
    private let discovery: ScannerChoices?
    private let logger: Logger
    private let running = RunningLoops()

    /// - Parameter discovery: which USB devices are scanners, to list as candidates; nil to
    ///   follow only `devices`.
    package init(
        devices: [USBDeviceSpec], discovery: ScannerChoices? = nil, logger: Logger = Logger(label: "scanbridge.driver.usb")
    ) {
        self.devices = devices
        self.discovery = discovery
        self.logger = logger
    }

    package func events() -> AsyncStream<DriverEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: DriverEvent.self)
        let devices = devices
        let discovery = discovery
        let running = running
        // The named devices are found through discovery even when it is off for the other
        // drivers: a USB device has no path to name that survives a replug.
        let found = DiscoveredReaders(
            driver: name, subsystems: ["usb"], named: [], choices: discovery ?? ScannerChoices(), events: continuation,
            logger: logger, threadName: "scanbridge-usb",
            accepts: { node in
                guard node.vendorId != nil else { return false }
                if devices.contains(where: { $0.matches(node) }) { return true }
                return discovery?.selection.verdict(node, id: node.deviceID(driver: Self.driverName)).read ?? false
            },
            judge: { _, node, _ in Self.verdict(node, devices: devices) }
        ) { [logger] node, id in
            devices.first { $0.matches(node) }.map {
                USBReadLoop(spec: $0, node: node, id: id, running: running, events: continuation, logger: logger)
            }
        }
        DiscoveredReaders.serve(loops: [], discovered: found, threadName: "scanbridge-usb", events: continuation)
        return stream
    }

    /// Waits for every read loop to have released its interface (and given a detached one
    /// back to its kernel driver).
    package func finish() async {
        await running.waitForAll()
    }

    /// The device as reported: its USB product's name and ids, and its node.
    static func describe(_ node: DiscoveredNode, id: String, spec: USBDeviceSpec) -> Device {
        Device(
            id: id, driver: driverName, kind: .barcode, name: node.name ?? "USB \(node.usbProduct ?? "device")",
            vendorId: spec.vendorId.usbID, productId: spec.productId.usbID, serial: node.serial, path: node.devnode)
    }

    /// Whether a USB device is read, and why: only when named; otherwise what its
    /// interfaces need, as `devices.candidates` says it.
    static func verdict(_ node: DiscoveredNode, devices: [USBDeviceSpec]) -> (read: Bool, reason: String) {
        if let spec = devices.first(where: { $0.matches(node) }) {
            return (true, "named with --device (interface \(spec.interface))")
        }
        return (false, USBInterface.advice(for: USBInterface.of(port: node.sysname), product: node.usbProduct ?? "VID:PID"))
    }
}

extension USBInterface {
    /// What an operator does with a scanner whose interfaces are these.
    static func advice(for interfaces: [USBInterface], product: String) -> String {
        let unbound = interfaces.filter { $0.driver == nil }
        if let free = unbound.first(where: \.isVendorSpecific) ?? unbound.first {
            let mode = free.isVendorSpecific ? "in a vendor mode" : "not bound to a kernel driver"
            return "\(mode) (interface \(free.number)): read it with --device usb:\(product),interface=\(free.number),"
                + " or scan the maker's setup code for HID POS or USB COM mode"
        }
        let drivers = Set(interfaces.compactMap(\.driver)).sorted()
        guard !drivers.isEmpty else { return "no interfaces to read" }
        if drivers == ["usbfs"] { return "another program has claimed it" }
        return "bound to the kernel's \(drivers.joined(separator: ", ")): read through the evdev, hidpos or serial driver"
    }
}
