import Glibc
package import Logging
package import ScanBridgeCore
import ScanBridgeModel
import Synchronization

/// The devices a driver finds through discovery, each run by a loop of its own (a
/// `NodeReadLoop`, or the driver's own `DeviceLoop`, like a camera's capture loop): started
/// when its node appears and the shared `ScannerChoices` say it is to be read, ended when the
/// node goes or the operator releases it, the device then reported `gone`. The same device
/// plugged in again gets a new loop under the same id (ids come from the USB device:
/// `DiscoveredNode.deviceID`).
package final class DiscoveredReaders: Sendable {
    /// The reading of a node taken as a scanner with device `id`; nil when it cannot be read
    /// (logged by the driver).
    package typealias Make = @Sendable (_ node: DiscoveredNode, _ id: String) -> (any NodeReading & Sendable)?
    /// The same for a driver with a loop of its own: the loop, not started yet.
    package typealias MakeLoop = @Sendable (_ node: DiscoveredNode, _ id: String) -> (any DeviceLoop)?
    /// Whether a node (as device id) is read under a selection, and why.
    package typealias Judge = @Sendable (ScannerSelection, DiscoveredNode, String) -> (read: Bool, reason: String)

    private struct State {
        /// The nodes discovery reported that this driver could read (`accepts`), by devnode.
        var known: [String: DiscoveredNode] = [:]
        var readers: [String: (id: String, loop: any DeviceLoop)] = [:]
    }

    private let driver: String
    private let subsystems: [String]
    private let named: Set<String>
    private let choices: ScannerChoices
    private let accepts: @Sendable (DiscoveredNode) -> Bool
    private let judge: Judge
    private let make: MakeLoop
    private let events: AsyncStream<DriverEvent>.Continuation
    private let logger: Logger
    private let threadName: String
    private let state = Mutex(State())

    /// A scanner driver's: nodes read by a `NodeReadLoop`, when `ScannerSelection.verdict` says so.
    /// - Parameters:
    ///   - named: the paths given with `--device`, read already, left alone here (and the
    ///     nodes they lead to: see `namedNodes`).
    ///   - accepts: whether a node is of the kind this driver reads (a keyboard's event node,
    ///     a `ttyACM` port), before any question of whether it is a scanner.
    package convenience init(
        driver: String, subsystems: [String], named: Set<String>, choices: ScannerChoices,
        events: AsyncStream<DriverEvent>.Continuation, logger: Logger, threadName: String,
        accepts: @escaping @Sendable (DiscoveredNode) -> Bool, make: @escaping Make
    ) {
        // A discovered node is not waited for after an unplug: discovery starts a new loop when it is back.
        self.init(
            driver: driver, subsystems: subsystems, named: named, choices: choices, events: events, logger: logger,
            threadName: threadName, accepts: accepts, judge: { $0.verdict($1, id: $2) }
        ) { node, id in
            make(node, id).map { NodeReadLoop(reading: $0, events: events, reopens: false) }
        }
    }

    /// Any driver's: the loop `make` gives for each node `judge` says is read.
    package init(
        driver: String, subsystems: [String], named: Set<String>, choices: ScannerChoices,
        events: AsyncStream<DriverEvent>.Continuation, logger: Logger, threadName: String,
        accepts: @escaping @Sendable (DiscoveredNode) -> Bool, judge: @escaping Judge, makeLoop make: @escaping MakeLoop
    ) {
        self.driver = driver
        self.subsystems = subsystems
        self.named = Self.namedNodes(named)
        self.choices = choices
        self.accepts = accepts
        self.judge = judge
        self.make = make
        self.events = events
        self.logger = logger
        self.threadName = threadName
    }

    private enum Input {
        case discovered(DiscoveryEvent)
        /// The operator claimed or released something: every known node is looked at again.
        case reselect
    }

    /// Follows discovery until cancelled.
    package func run() async {
        await run(discovery: NodeDiscovery(subsystems: subsystems, logger: logger).events())
    }

    /// Follows `discovery` and the operator's choices, one at a time, until cancelled.
    func run(discovery: AsyncStream<DiscoveryEvent>) async {
        let (inputs, input) = AsyncStream.makeStream(of: Input.self)
        let forwarding = Task {
            for await event in discovery { input.yield(.discovered(event)) }
        }
        let token = choices.watch(
            ScannerChoices.Watcher(
                changed: { input.yield(.reselect) }, candidates: { [self] in candidates() }))
        for await next in inputs {
            switch next {
            case .discovered(.added(let node)): added(node)
            case .discovered(.removed(let node)): removed(node)
            case .reselect: reselect()
            }
        }
        choices.unwatch(token)
        forwarding.cancel()
        stopAll()
    }

    package func stopAll() {
        let loops = state.withLock { state in
            defer { state.readers = [:] }
            return state.readers.values.map(\.loop)
        }
        for loop in loops { loop.stop.stop() }
    }

    /// The nodes this driver knows, with whether each is read and why.
    func candidates() -> [ScannerCandidate] {
        let selection = choices.selection
        return state.withLock { state in
            state.known.values.map { node in
                let id = node.deviceID(driver: driver)
                return ScannerCandidate(
                    id: id, driver: driver, name: node.name, usb: node.usbProduct, path: node.devnode,
                    read: state.readers[node.devnode] != nil, reason: judge(selection, node, id).reason)
            }
        }
    }

    private func added(_ node: DiscoveredNode) {
        guard !named.contains(node.devnode), accepts(node) else { return }
        state.withLock { $0.known[node.devnode] = node }
        startIfChosen(node)
    }

    private func removed(_ node: DiscoveredNode) {
        state.withLock { _ = $0.known.removeValue(forKey: node.devnode) }
        stop(node.devnode)
    }

    private func reselect() {
        let selection = choices.selection
        let (known, reading) = state.withLock { state in (Array(state.known.values), Set(state.readers.keys)) }
        for node in known.sorted(by: { $0.devnode < $1.devnode }) {
            let verdict = judge(selection, node, node.deviceID(driver: driver))
            if verdict.read, !reading.contains(node.devnode) {
                startIfChosen(node)
            } else if !verdict.read, reading.contains(node.devnode) {
                logger.info("\(node.deviceID(driver: driver)) at \(node.devnode): \(verdict.reason), no longer read")
                stop(node.devnode)
            }
        }
    }

    private func startIfChosen(_ node: DiscoveredNode) {
        let id = node.deviceID(driver: driver)
        let verdict = judge(choices.selection, node, id)
        guard state.withLock({ $0.readers[node.devnode] == nil }) else { return }
        guard verdict.read else {
            logger.debug("\(node.devnode) (\(node.name ?? "?"), \(id)): \(verdict.reason), left alone")
            return
        }
        guard let loop = make(node, id) else { return }
        state.withLock { $0.readers[node.devnode] = (id, loop) }
        logger.info("\(id) at \(node.devnode): \(verdict.reason)")
        loop.start(name: threadName)
    }

    /// Ends the node's reader (closing the node ends a grab), the device then `gone`.
    private func stop(_ devnode: String) {
        guard let reader = state.withLock({ $0.readers.removeValue(forKey: devnode) }) else { return }
        reader.loop.stop.stop()
        events.yield(.gone(deviceID: reader.id))
    }
}

extension DiscoveredReaders {
    /// The paths named with `--device` and the nodes they lead to: a device named by its
    /// `/dev/input/by-id/…` or `/dev/v4l/by-id/…` link is the node discovery reports, and two
    /// loops on one device would read every scan twice, or leave one of them `busy`.
    static func namedNodes(_ paths: Set<String>) -> Set<String> {
        paths.union(
            paths.compactMap { path in
                guard let resolved = realpath(path, nil) else { return nil }
                defer { free(resolved) }
                return String(cString: resolved)
            })
    }

    /// A node driver's run: a `NodeReadLoop` for each reading named with `--device`, and, with
    /// `discovered`, what discovery finds; all of them end when the driver's stream does.
    package static func serve(
        named: [any NodeReading & Sendable], discovered: DiscoveredReaders?, threadName: String,
        events: AsyncStream<DriverEvent>.Continuation
    ) {
        serve(
            loops: named.map { NodeReadLoop(reading: $0, events: events) }, discovered: discovered, threadName: threadName,
            events: events)
    }

    /// The same with the driver's own loops for the devices named with `--device`.
    package static func serve(
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
