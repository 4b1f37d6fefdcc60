import DeviceNodes
import Logging
import ScanBridgeCore

/// Barcode scanners on a serial line: USB CDC-ACM (`/dev/ttyACM*`) or an RS-232 adapter.
/// Each device is read on a thread of its own, in raw mode, and every read it sends (ended
/// by its suffix or a pause) becomes one `barcode` read.
///
/// This build reads the devices named with `--device serial:PATH[,suffix=…]` (ttys, ptys
/// and FIFOs); discovery through udev comes with the rest of issue #6.
public final class SerialDriver: DeviceDriver {
    public let name = "serial"
    private let devices: [SerialDeviceSpec]
    private let logger: Logger

    public init(devices: [SerialDeviceSpec], logger: Logger = Logger(label: "scanbridge.driver.serial")) {
        self.devices = devices
        self.logger = logger
    }

    public func events() -> AsyncStream<DriverEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: DriverEvent.self)
        let loops = devices.map { spec in
            let reading = SerialReading(spec: spec, events: continuation, logger: logger)
            let loop = NodeReadLoop(reading: reading, events: continuation, logger: reading.logger)
            loop.start(name: "scanbridge-serial")
            return loop
        }
        continuation.onTermination = { _ in
            for loop in loops { loop.stop.stop() }
        }
        return stream
    }
}
