import DeviceNodes
import Logging
import ScanBridgeCore
import USBDiscovery

/// What discovery needs to know: the settings of the scanners it finds (`layout`,
/// `max_gap`, `idle`, as for `--device evdev:…`), and which keyboards are scanners.
public struct EvdevDiscoverySettings: Sendable {
    public var deviceSettings: [String: String]
    public var selection: ScannerSelection

    /// Checks `deviceSettings` as `--device` settings are checked.
    public init(deviceSettings: [String: String] = [:], selection: ScannerSelection = ScannerSelection()) throws(EvdevError) {
        _ = try EvdevDeviceSpec(path: "", settings: deviceSettings)
        self.deviceSettings = deviceSettings
        self.selection = selection
    }
}

extension EvdevDiscoverySettings {
    /// The keyboard event nodes that are scanners, read with these settings. Their ids come
    /// from the USB device (`evdev:vvvv:pppp:SERIAL`, else the port), so a replug, on any port
    /// if it has a serial, is the same device again, grabbed again.
    func readers(named: Set<String>, events: AsyncStream<DriverEvent>.Continuation, logger: Logger) -> DiscoveredReaders {
        DiscoveredReaders(subsystems: ["input"], named: named, events: events, logger: logger, threadName: "scanbridge-evdev") {
            [self] node in
            guard node.sysname.hasPrefix("event"), node.isKeyboard else { return nil }
            let id = node.deviceID(driver: "evdev")
            guard let reason = selection.reason(node, id: id) else {
                logger.debug("\(node.devnode) (\(node.name ?? "?"), \(id)) is a keyboard, not a scanner: left alone")
                return nil
            }
            do {
                let spec = try EvdevDeviceSpec(path: node.devnode, settings: deviceSettings)
                return (try EvdevReading(spec: spec, id: id, events: events, logger: logger), id, reason)
            } catch {
                logger.error("\(node.devnode): \(error)")
                return nil
            }
        }
    }
}
