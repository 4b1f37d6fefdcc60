import DeviceNodes
import Logging
import ScanBridgeCore
import Synchronization

/// The devices a driver finds through discovery, each run by a loop of its own (a
/// `NodeReadLoop`, or the driver's own `DeviceLoop`, like a camera's capture loop):
/// started when its node appears (and the driver takes it), ended when the node goes,
/// the device then reported `gone`. The same device plugged in again gets a new loop under
/// the same id (ids come from the USB device: `DiscoveredNode.deviceID`).
public final class DiscoveredReaders: Sendable {
    /// What the driver makes of a node: a reading with the device id and the reason it is
    /// taken (for the log), or nil to leave the node alone.
    public typealias Take = @Sendable (DiscoveredNode) -> (reading: any NodeReading & Sendable, id: String, reason: String)?
    /// The same for a driver with a loop of its own: the loop (not started yet) instead of a reading.
    public typealias TakeLoop = @Sendable (DiscoveredNode) -> (loop: any DeviceLoop, id: String, reason: String)?

    private let subsystems: [String]
    private let take: TakeLoop
    private let named: Set<String>
    private let events: AsyncStream<DriverEvent>.Continuation
    private let logger: Logger
    private let threadName: String
    private let readers = Mutex<[String: (id: String, loop: any DeviceLoop)]>([:])

    /// - Parameter named: the paths given with `--device`, read already, left alone here.
    public convenience init(subsystems: [String], named: Set<String>, events: AsyncStream<DriverEvent>.Continuation, logger: Logger,
                            threadName: String, take: @escaping Take) {
        // A discovered node is not waited for after an unplug: discovery starts a new loop when it is back.
        self.init(subsystems: subsystems, named: named, events: events, logger: logger, threadName: threadName) { node in
            take(node).map { (NodeReadLoop(reading: $0.reading, events: events, reopens: false), $0.id, $0.reason) }
        }
    }

    /// - Parameter named: the paths given with `--device`, run already, left alone here.
    public init(subsystems: [String], named: Set<String>, events: AsyncStream<DriverEvent>.Continuation, logger: Logger,
                threadName: String, takeLoop take: @escaping TakeLoop) {
        self.subsystems = subsystems
        self.take = take
        self.named = named
        self.events = events
        self.logger = logger
        self.threadName = threadName
    }

    /// Follows discovery until cancelled.
    public func run() async {
        let discovery = NodeDiscovery(subsystems: subsystems, logger: logger)
        for await event in discovery.events() {
            switch event {
            case .added(let node): added(node)
            case .removed(let node): removed(node)
            }
        }
        stopAll()
    }

    public func stopAll() {
        let loops = readers.withLock { readers in
            defer { readers = [:] }
            return readers.values.map(\.loop)
        }
        for loop in loops { loop.stop.stop() }
    }

    private func added(_ node: DiscoveredNode) {
        guard !named.contains(node.devnode), readers.withLock({ $0[node.devnode] == nil }),
              let taken = take(node) else { return }
        readers.withLock { $0[node.devnode] = (taken.id, taken.loop) }
        logger.info("\(taken.id) at \(node.devnode): \(taken.reason)")
        taken.loop.start(name: threadName)
    }

    private func removed(_ node: DiscoveredNode) {
        guard let reader = readers.withLock({ $0.removeValue(forKey: node.devnode) }) else { return }
        reader.loop.stop.stop()
        events.yield(.gone(deviceID: reader.id))
    }
}

extension DiscoveredReaders {
    /// A node driver's run: a `NodeReadLoop` for each reading named with `--device`, and, with
    /// `discovered`, what discovery finds; all of them end when the driver's stream does.
    public static func serve(
        named: [any NodeReading & Sendable], discovered: DiscoveredReaders?, threadName: String,
        events: AsyncStream<DriverEvent>.Continuation
    ) {
        serve(loops: named.map { NodeReadLoop(reading: $0, events: events) }, discovered: discovered, threadName: threadName, events: events)
    }

    /// The same with the driver's own loops for the devices named with `--device`.
    public static func serve(
        loops: [any DeviceLoop], discovered: DiscoveredReaders?, threadName: String,
        events: AsyncStream<DriverEvent>.Continuation
    ) {
        for loop in loops { loop.start(name: threadName) }
        let watching = discovered.map { found in Task { await found.run() } }
        events.onTermination = { _ in
            for loop in loops { loop.stop.stop() }
            watching?.cancel()
            discovered?.stopAll()
        }
    }
}
