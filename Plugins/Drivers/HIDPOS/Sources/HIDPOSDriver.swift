import DeviceNodes
import Logging
import ScanBridgeCore

/// Barcode scanners in HID POS mode (USB HID usage page 0x8C), read from their hidraw
/// nodes, the kernel's usbhid driver staying bound. Each device is read on a thread of its
/// own; each label, in one report or several, becomes one `barcode` read with its AIM
/// identifier.
///
/// This build reads the devices named with `--device hidpos:PATH` (hidraw nodes and FIFOs);
/// discovery through udev comes with the rest of issue #6.
public final class HIDPOSDriver: DeviceDriver {
    public let name = "hidpos"
    private let paths: [String]
    private let logger: Logger

    public init(paths: [String], logger: Logger = Logger(label: "scanbridge.driver.hidpos")) {
        self.paths = paths
        self.logger = logger
    }

    /// `--device hidpos:PATH` takes no settings: the report descriptor says it all.
    public static func checkSettings(_ settings: [String: String]) throws(HIDPOSError) {
        if let unknown = settings.keys.sorted().first {
            throw .badSetting("a hidpos device takes no settings (got '\(unknown)'): its report descriptor describes it")
        }
    }

    public func events() -> AsyncStream<DriverEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: DriverEvent.self)
        let loops = paths.map { path in
            let reading = HIDPOSReading(path: path, events: continuation, logger: logger)
            let loop = NodeReadLoop(reading: reading, events: continuation, logger: reading.logger)
            loop.start(name: "scanbridge-hidpos")
            return loop
        }
        continuation.onTermination = { _ in
            for loop in loops { loop.stop.stop() }
        }
        return stream
    }
}

public enum HIDPOSError: Error, Equatable, CustomStringConvertible {
    case badSetting(String)

    public var description: String {
        switch self {
        case .badSetting(let sentence): sentence
        }
    }
}
