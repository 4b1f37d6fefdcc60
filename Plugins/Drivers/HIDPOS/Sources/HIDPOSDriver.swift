package import DriverKit
package import Logging
package import ScanBridgeCore
import ScanBridgeModel

/// Barcode scanners in HID POS mode (USB HID usage page 0x8C), read from their hidraw
/// nodes, the kernel's usbhid driver staying bound. Each device is read on a thread of its
/// own; each label, in one report or several, becomes one `barcode` read with its AIM
/// identifier.
///
/// Devices come from udev discovery (hidraw nodes of scanner makers, or claimed, whose report
/// descriptor has barcode data) and from `--device hidpos:PATH` (hidraw nodes and FIFOs).
package final class HIDPOSDriver: DeviceDriver {
    package let name = "hidpos"
    private let paths: [String]
    private let discovery: ScannerChoices?
    private let logger: Logger

    /// - Parameter discovery: which discovered hidraw nodes to try (their report descriptor
    ///   decides); nil to read only `paths`.
    package init(paths: [String], discovery: ScannerChoices? = nil, logger: Logger = Logger(label: "scanbridge.driver.hidpos")) {
        self.paths = paths
        self.discovery = discovery
        self.logger = logger
    }

    /// `--device hidpos:PATH` takes no settings: the report descriptor says it all.
    package static func checkSettings(_ settings: [String: String]) throws(HIDPOSError) {
        if let unknown = settings.keys.sorted().first {
            throw .badSetting("a hidpos device takes no settings (got '\(unknown)'): its report descriptor describes it")
        }
    }

    package func events() -> AsyncStream<DriverEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: DriverEvent.self)
        let named = paths.map { HIDPOSReading(path: $0, events: continuation, logger: logger) }
        let found = discovery.map { choices in
            // Every hidraw node of a scanner: its report descriptor says whether it is HID POS.
            DiscoveredReaders(
                driver: name, subsystems: ["hidraw"], named: Set(paths), choices: choices, events: continuation,
                logger: logger, threadName: "scanbridge-hidpos", accepts: { _ in true }
            ) { [logger] node, id in
                HIDPOSReading(path: node.devnode, id: id, events: continuation, logger: logger)
            }
        }
        DiscoveredReaders.serve(named: named, discovered: found, threadName: "scanbridge-hidpos", events: continuation)
        return stream
    }
}

package enum HIDPOSError: Error, Equatable, CustomStringConvertible {
    case badSetting(String)

    package var description: String {
        switch self {
        case .badSetting(let sentence): sentence
        }
    }
}
