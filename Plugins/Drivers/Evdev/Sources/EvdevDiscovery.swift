import DeviceNodes
import Logging
import ScanBridgeCore
import Synchronization
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

/// Scanners found by udev: each keyboard event node that is a scanner gets a reader when
/// it appears, and is `gone` when it goes. Its id comes from the USB device
/// (`evdev:vvvv:pppp:SERIAL`, else the port), so a replug, on any port if it has a
/// serial, is the same device again, grabbed again.
final class EvdevDiscovery: Sendable {
    private let settings: EvdevDiscoverySettings
    private let named: Set<String>
    private let events: AsyncStream<DriverEvent>.Continuation
    private let logger: Logger
    private let readers = Mutex<[String: (id: String, loop: NodeReadLoop)]>([:])

    /// - Parameter named: the paths given with `--device`, read already, left alone here.
    init(settings: EvdevDiscoverySettings, named: Set<String>, events: AsyncStream<DriverEvent>.Continuation, logger: Logger) {
        self.settings = settings
        self.named = named
        self.events = events
        self.logger = logger
    }

    /// Follows discovery until cancelled.
    func run() async {
        let discovery = NodeDiscovery(subsystems: ["input"], logger: logger)
        for await event in discovery.events() {
            switch event {
            case .added(let node): added(node)
            case .removed(let node): removed(node)
            }
        }
        stopAll()
    }

    func stopAll() {
        let loops = readers.withLock { readers in
            defer { readers = [:] }
            return readers.values.map(\.loop)
        }
        for loop in loops { loop.stop.stop() }
    }

    private func added(_ node: DiscoveredNode) {
        guard node.sysname.hasPrefix("event"), node.isKeyboard, !named.contains(node.devnode) else { return }
        let id = node.deviceID(driver: "evdev")
        guard let reason = settings.selection.reason(node, id: id) else {
            logger.debug("\(node.devnode) (\(node.name ?? "?"), \(id)) is a keyboard, not a scanner: left alone")
            return
        }
        guard readers.withLock({ $0[node.devnode] == nil }) else { return }
        do {
            let spec = try EvdevDeviceSpec(path: node.devnode, settings: settings.deviceSettings)
            let reading = try EvdevReading(spec: spec, id: id, events: events, logger: logger)
            let loop = NodeReadLoop(reading: reading, events: events, logger: reading.logger, reopens: false)
            readers.withLock { $0[node.devnode] = (id, loop) }
            logger.info("scanner \(id) at \(node.devnode): \(reason)")
            loop.start(name: "scanbridge-evdev")
        } catch {
            logger.error("\(node.devnode): \(error)")
        }
    }

    private func removed(_ node: DiscoveredNode) {
        guard let reader = readers.withLock({ $0.removeValue(forKey: node.devnode) }) else { return }
        reader.loop.stop.stop()
        events.yield(.gone(deviceID: reader.id))
    }
}
