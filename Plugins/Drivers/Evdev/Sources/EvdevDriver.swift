import DeviceNodes
import Logging
import ScanBridgeCore

/// Keyboard-wedge barcode scanners through evdev: each device is read on a thread of its
/// own, grabbed so the desktop does not see its keys, and every label it types (keys in the
/// layout it emulates, then Enter or Tab) becomes one `barcode` read.
///
/// This build reads the devices named with `--device evdev:PATH[,layout=…]` (device nodes,
/// FIFOs and ptys); discovery through udev comes with issue #6.
public final class EvdevDriver: DeviceDriver {
    public let name = "evdev"
    private let devices: [EvdevDeviceSpec]
    private let logger: Logger

    public init(devices: [EvdevDeviceSpec], logger: Logger = Logger(label: "scanbridge.driver.evdev")) {
        self.devices = devices
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
        continuation.onTermination = { [loops] _ in
            for loop in loops { loop.stop.stop() }
        }
        return stream
    }
}
