import DeviceNodes
import Logging
import ScanBridgeCore

/// Keyboard-wedge barcode scanners through evdev: each device is read on a thread of its
/// own, grabbed so the desktop does not see its keys, and every label it types (keys in the
/// layout it emulates, then Enter or Tab) becomes one `barcode` read.
///
/// Devices come from udev discovery (keyboards that are scanners: `ScannerSelection`) and
/// from `--device evdev:PATH[,layout=…]` (device nodes, FIFOs and ptys).
public final class EvdevDriver: DeviceDriver {
    public let name = "evdev"
    private let devices: [EvdevDeviceSpec]
    private let discovery: EvdevDiscoverySettings?
    private let logger: Logger

    /// - Parameter discovery: nil to read only `devices`.
    public init(devices: [EvdevDeviceSpec], discovery: EvdevDiscoverySettings? = nil,
                logger: Logger = Logger(label: "scanbridge.driver.evdev")) {
        self.devices = devices
        self.discovery = discovery
        self.logger = logger
    }

    public func events() -> AsyncStream<DriverEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: DriverEvent.self)
        var loops: [NodeReadLoop] = []
        for spec in devices {
            do {
                let reading = try EvdevReading(spec: spec, events: continuation, logger: logger)
                let loop = NodeReadLoop(reading: reading, events: continuation, logger: reading.logger)
                loop.start(name: "scanbridge-evdev")
                loops.append(loop)
            } catch {
                logger.error("\(spec.path): \(error)")
            }
        }
        let found = discovery?.readers(named: Set(devices.map(\.path)), events: continuation, logger: logger)
        let watching = found.map { found in Task { await found.run() } }
        continuation.onTermination = { [loops] _ in
            for loop in loops { loop.stop.stop() }
            watching?.cancel()
            found?.stopAll()
        }
        return stream
    }
}
