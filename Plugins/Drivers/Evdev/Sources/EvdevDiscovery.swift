package import DriverKit
import Logging
import ScanBridgeCore
import ScanBridgeModel

/// What discovery needs to know: the settings of the scanners it finds (`layout`,
/// `max_gap`, `idle`, as for `--device evdev:…`), and which keyboards are scanners.
package struct EvdevDiscoverySettings: Sendable {
    package var deviceSettings: [String: String]
    package var choices: ScannerChoices

    /// Checks `deviceSettings` as `--device` settings are checked.
    package init(deviceSettings: [String: String] = [:], choices: ScannerChoices = ScannerChoices()) throws(KeyboardError) {
        _ = try EvdevDeviceSpec(path: "", settings: deviceSettings)
        self.deviceSettings = deviceSettings
        self.choices = choices
    }
}

extension EvdevDiscoverySettings {
    /// How a keyboard node discovery found is read: with `deviceSettings`, as if named with `--device`.
    package func spec(path: String) throws(KeyboardError) -> EvdevDeviceSpec {
        try EvdevDeviceSpec(path: path, settings: deviceSettings)
    }

    /// The keyboard event nodes that are scanners, read with these settings. Their ids come
    /// from the USB device (`evdev:vvvv:pppp:SERIAL`, else the port), so a replug, on any port
    /// if it has a serial, is the same device again, grabbed again.
    func readers(named: Set<String>, events: AsyncStream<DriverEvent>.Continuation, logger: Logger) -> DiscoveredReaders {
        DiscoveredReaders(
            driver: "evdev", subsystems: ["input"], named: named, choices: choices, events: events, logger: logger,
            threadName: "scanbridge-evdev", accepts: { $0.sysname.hasPrefix("event") && $0.isKeyboard }
        ) { [self] node, id in
            do {
                let spec = try spec(path: node.devnode)
                return try EvdevReading(spec: spec, id: id, events: events, logger: logger)
            } catch {
                logger.error("\(node.devnode): \(error)")
                return nil
            }
        }
    }
}
