import Logging
import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeTesting
import Synchronization
import Testing

/// A journal in memory that fails every append, as a full disk would, until `failing` is cleared.
final class FailingJournal: Journal {
    private let inner: MemoryJournal
    private let state = Mutex((failing: true, attempts: 0))

    init(onCommit: @escaping @Sendable ([JournaledEvent]) -> Void) {
        inner = MemoryJournal(onCommit: onCommit)
    }

    var failing: Bool {
        get { state.withLock { $0.failing } }
        set { state.withLock { $0.failing = newValue } }
    }

    var attempts: Int { state.withLock { $0.attempts } }
    var latestSeq: UInt64 { inner.latestSeq }

    func append(contentsOf events: [ScanEvent]) async throws -> [JournaledEvent] {
        let failing = state.withLock { state in
            state.attempts += 1
            return state.failing
        }
        if failing {
            throw JournalWriteFailure(reason: "disk full", error: .unavailable("the event journal could not be written"))
        }
        return try await inner.append(contentsOf: events)
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

@Suite("Device reads waiting for the journal")
struct ReadSpoolTests {
    let device = Device(id: "scripted:till", driver: "scripted", kind: .barcode, name: "Till")

    func start(reads: Int, spool: ReadSpool) -> (Bridge, FailingJournal, Task<Void, Never>) {
        let publisher = Publisher()
        let journal = FailingJournal { publisher.publish($0) }
        let bridge = Bridge(journal: journal, publisher: publisher, router: Router(handlers: []), spool: spool)
        let events = [DriverEvent.device(device)] + (1...reads).map { .read(barcodeRead("item-\($0)", device: device.id)) }
        let host = DriverHost(
            drivers: [ScriptedDriver { $0 == 1 ? events : [] }], bridge: bridge, logger: DriverHostLaneTests.quiet,
            restartDelay: .seconds(60))
        return (bridge, journal, Task { await host.run() })
    }

    static func quick(maxReads: Int = 10_000) -> ReadSpool {
        ReadSpool(maxReads: maxReads, firstDelay: .milliseconds(1), maxDelay: .milliseconds(20))
    }

    /// The `item-N` each journaled event read, oldest first.
    func texts(_ bridge: Bridge) async throws -> [String] {
        try await bridge.journal.recent(limit: 100, kinds: nil).map { stored in
            let json = String(decoding: stored.json, as: UTF8.self)
            return (1...9).map { "item-\($0)" }.first { json.contains("\"\($0)\"") } ?? json
        }
    }

    @Test("reads wait while the journal cannot be written, the device says why, and all commit in order after")
    func readsWaitAndCommit() async throws {
        let (bridge, journal, running) = start(reads: 5, spool: Self.quick())
        defer { running.cancel() }
        try await waitUntil("the device in error") { bridge.registry.device(device.id)?.state == .error }
        #expect(bridge.registry.device(device.id)?.error == "reads are waiting: the journal cannot be written (disk full)")
        try await waitUntil("every read waiting, and retried") { bridge.spool.count == 5 && journal.attempts >= 3 }
        #expect(journal.latestSeq == 0, "nothing is journaled, and no seq given, before a commit")
        journal.failing = false
        try await waitUntil("every read journaled") { journal.latestSeq == 5 }
        #expect(try await texts(bridge) == (1...5).map { "item-\($0)" }, "in the order read")
        try await waitUntil("the device ready again") { bridge.registry.device(device.id)?.state == .ready }
        #expect(bridge.registry.device(device.id)?.error == nil)
        #expect(bridge.spool.count == 0)
    }

    @Test("past the daemon's bound the newest reads are dropped and the device says so")
    func daemonBound() async throws {
        let (bridge, journal, running) = start(reads: 5, spool: Self.quick(maxReads: 2))
        defer { running.cancel() }
        try await waitUntil("the device waiting for the journal and dropping reads") {
            bridge.registry.device(device.id)?.error
                == "reads are waiting: the journal cannot be written (disk full); the newest are dropped"
        }
        journal.failing = false
        try await waitUntil("the device ready again") { bridge.registry.device(device.id)?.state == .ready }
        #expect(try await texts(bridge) == ["item-1", "item-2"], "the oldest are kept, in order")
        #expect(bridge.spool.count == 0)
    }

    @Test("a host stopped while the journal cannot be written gives the waiting reads up and returns")
    func stopGivesUp() async throws {
        let spool = ReadSpool(firstDelay: .seconds(60), maxDelay: .seconds(60))
        let (bridge, journal, running) = start(reads: 3, spool: spool)
        try await waitUntil("the first read failed once") { journal.attempts >= 1 && bridge.spool.count == 3 }
        running.cancel()
        await running.value
        #expect(bridge.spool.count == 0, "every read given up, none left waiting")
        #expect(journal.latestSeq == 0)
    }
}
