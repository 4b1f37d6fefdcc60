package import DriverKit
package import Logging
package import ScanBridgeCore
import ScanBridgeModel

/// Barcode scanners on a serial line: USB CDC-ACM (`/dev/ttyACM*`) or an RS-232 adapter.
/// Each device is read on a thread of its own, in raw mode, and every read it sends (ended
/// by its suffix or a pause) becomes one `barcode` read.
///
/// Devices come from udev discovery (`ttyACM` ports of scanner makers, or claimed) and from
/// `--device serial:PATH[,suffix=…]` (ttys, ptys and FIFOs).
package final class SerialDriver: DeviceDriver {
    package let name = "serial"
    private let devices: [SerialDeviceSpec]
    private let discovery: ScannerChoices?
    private let logger: Logger

    /// - Parameter discovery: which discovered `ttyACM` nodes are scanners; nil to read only `devices`.
    package init(
        devices: [SerialDeviceSpec], discovery: ScannerChoices? = nil,
        logger: Logger = Logger(label: "scanbridge.driver.serial")
    ) {
        self.devices = devices
        self.discovery = discovery
        self.logger = logger
    }

    package func events() -> AsyncStream<DriverEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: DriverEvent.self)
        let named = devices.map { SerialReading(spec: $0, events: continuation, logger: logger) }
        let found = discovery.map { choices in
            // USB CDC-ACM ports only: a ttyS or ttyUSB port may be anything.
            DiscoveredReaders(
                driver: name, subsystems: ["tty"], named: Set(devices.map(\.path)), choices: choices,
                events: continuation, logger: logger, threadName: "scanbridge-serial",
                accepts: { $0.sysname.hasPrefix("ttyACM") }
            ) { [logger] node, id in
                (try? SerialDeviceSpec(path: node.devnode)).map {
                    SerialReading(spec: $0, id: id, events: continuation, logger: logger)
                }
            }
        }
        DiscoveredReaders.serve(named: named, discovered: found, threadName: "scanbridge-serial", events: continuation)
        return stream
    }
}
