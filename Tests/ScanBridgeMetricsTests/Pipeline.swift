import Logging
import MockDriver
import ScanBridgeCore
import ScanBridgeMetrics
import ScanBridgeModel

/// Answers by the scanned text: `slow` as an out-of-process handler that timed out would,
/// `bad` by throwing, `odd` with a status no built-in handler gives; anything else is found.
struct VerdictHandler: ScanHandler {
    struct Failure: Error {}

    var name = "verdict"
    let priority = 0

    func accepts(_ event: ScanEvent) -> Bool { true }

    func resolve(_ event: ScanEvent) async throws -> Resolution {
        switch event.text {
        case "slow": Resolution(handler: name, status: "timeout")
        case "bad": throw Failure()
        case "odd": Resolution(handler: name, status: "made-up")
        default: Resolution(handler: name, status: "found")
        }
    }
}

/// A pipeline as the daemon wires it, recording into a registry of its own.
struct Pipeline {
    static let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    let metrics = PrometheusMetrics()
    let publisher: Publisher
    let journal: MemoryJournal
    let bridge: Bridge

    /// - Parameter failing: the journal fails every append, as on a full disk.
    init(maxReads: Int = 10_000, failing: Bool = false, handlers: [any ScanHandler] = [VerdictHandler()]) {
        let scanMetrics = ScanMetrics(factory: metrics.factory, drivers: ["mock"])
        let publisher = Publisher(metrics: scanMetrics)
        self.publisher = publisher
        journal = MemoryJournal { publisher.publish($0) }
        bridge = Bridge(
            journal: failing ? FullDiskJournal(inner: journal) : journal, publisher: publisher,
            router: Router(handlers: handlers, logger: Self.quiet, metrics: scanMetrics),
            spool: ReadSpool(
                maxReads: maxReads, firstDelay: .milliseconds(1), maxDelay: .milliseconds(20), metrics: scanMetrics))
    }

    func exposition() throws -> Exposition {
        try Exposition(metrics.exposition())
    }

    /// Runs `driver` under a driver host until `body` returns.
    func running<T>(_ driver: some DeviceDriver, _ body: () async throws -> T) async rethrows -> T {
        let host = DriverHost(drivers: [driver], bridge: bridge, logger: Self.quiet, restartDelay: .seconds(60))
        let task = Task { await host.run() }
        defer { task.cancel() }
        return try await body()
    }

    /// A mock barcode scanner `mock:till` that scans each line of `script` at once.
    static func till(scanning texts: [String]) throws -> MockDriver {
        let script = texts.isEmpty ? nil : try MockScript(parsing: texts.map { "0 \($0)" }.joined(separator: "\n"))
        return try MockDriver(devices: [MockDeviceSpec(kind: .barcode, id: "till", script: script)], logger: quiet)
    }
}

/// A mock driver's devices as a scanner's would be: their reads cannot wait for room
/// (`DeviceDriver.readsWait`), so a full lane or spool drops them.
struct Impatient: DeviceDriver {
    let mock: MockDriver
    var name: String { mock.name }
    func events() -> AsyncStream<DriverEvent> { mock.events() }
}

/// A journal that cannot take an event: every append fails; reads go to `inner`.
struct FullDiskJournal: Journal {
    let inner: MemoryJournal
    var latestSeq: UInt64 { inner.latestSeq }

    func append(contentsOf events: [ScanEvent]) async throws -> [JournaledEvent] {
        throw JournalWriteFailure(reason: "disk full", error: .unavailable("the event journal could not be written"))
    }

    func events(after: UInt64, through: UInt64, filter: SubscriptionFilter, limit: Int, maxBytes: Int) async throws
        -> [JournaledEvent]
    {
        try await inner.events(after: after, through: through, filter: filter, limit: limit, maxBytes: maxBytes)
    }

    func recent(limit: Int, kinds: Set<DeviceKind>?, maxBytes: Int) async throws -> [JournaledEvent] {
        try await inner.recent(limit: limit, kinds: kinds, maxBytes: maxBytes)
    }

    func oldestRetainedSeq() async throws -> UInt64? { try await inner.oldestRetainedSeq() }

    func rewrite(containing needle: [UInt8], _ rewrite: @escaping @Sendable (ScanEvent) -> ScanEvent?) async throws -> Int {
        try await inner.rewrite(containing: needle, rewrite)
    }
}
