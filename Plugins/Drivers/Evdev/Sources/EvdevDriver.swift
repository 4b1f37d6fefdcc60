import DriverKit
package import Logging
package import ScanBridgeCore
import ScanBridgeModel

/// Keyboard-wedge barcode scanners through evdev: each device is read on a thread of its
/// own, grabbed unless its `grab` is off (the grab alone keeps its keys from the desktop: the
/// udev rule hides nothing), and every label it types (keys in the layout it emulates, then
/// Enter or Tab) becomes one `barcode` read.
///
/// Devices come from udev discovery (keyboards that are scanners: `ScannerSelection`) and
/// from `--device evdev:PATH[,layout=…]` (device nodes, FIFOs and ptys).
package final class EvdevDriver: DeviceDriver {
    package let name = "evdev"
    private let devices: [EvdevDeviceSpec]
    private let discovery: EvdevDiscoverySettings?
    private let logger: Logger

    /// - Parameter discovery: nil to read only `devices`.
    package init(
        devices: [EvdevDeviceSpec], discovery: EvdevDiscoverySettings? = nil,
        logger: Logger = Logger(label: "scanbridge.driver.evdev")
    ) {
        self.devices = devices
        self.discovery = discovery
        self.logger = logger
    }

    package func events() -> AsyncStream<DriverEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: DriverEvent.self)
        var named: [EvdevReading] = []
        for spec in devices {
            do {
                named.append(try EvdevReading(spec: spec, events: continuation, logger: logger))
            } catch {
                logger.error("\(spec.path): \(error)")
            }
        }
        let found = discovery?.readers(named: Set(devices.map(\.path)), events: continuation, logger: logger)
        DiscoveredReaders.serve(named: named, discovered: found, threadName: "scanbridge-evdev", events: continuation)
        return stream
    }
}
