import Logging
import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeTesting
import Synchronization
import Testing

/// A driver that plays a fixed list of events per run, then stops (as a crashed driver would).
final class ScriptedDriver: DeviceDriver {
    let name = "scripted"
    let readsWait: Bool
    private let runs = Mutex(0)
    private let script: @Sendable (Int) -> [DriverEvent]

    init(readsWait: Bool = false, events script: @escaping @Sendable (Int) -> [DriverEvent]) {
        self.readsWait = readsWait
        self.script = script
    }

    var runCount: Int { runs.withLock { $0 } }

    func events() -> AsyncStream<DriverEvent> {
        let run = runs.withLock { runs in
            runs += 1
            return runs
        }
        return AsyncStream { continuation in
            for event in self.script(run) { continuation.yield(event) }
            continuation.finish()
        }
    }
}

@Suite("DriverHost")
struct DriverHostTests {
    let device = Device(id: "scripted:1", driver: "scripted", kind: .barcode, name: "Scripted scanner")

    @Test("devices and reads go to the registry and the journal, in order")
    func appliesEvents() async throws {
        let bridge = makeBridge()
        let device = self.device
        let driver = ScriptedDriver { run in
            run == 1
                ? [.device(device), .read(barcodeRead("4006381333931", device: device.id)), .gone(deviceID: device.id)]
                : []
        }
        let host = DriverHost(
            drivers: [driver], bridge: bridge, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
            restartDelay: .seconds(60))
        let running = Task { await host.run() }
        defer { running.cancel() }  // also when the wait fails
        try await waitUntil("the device gone in the registry") { bridge.registry.device(device.id)?.state == .gone }
        running.cancel()
        await running.value
        let recent = try await bridge.journal.recent(limit: 10, kinds: nil)
        #expect(recent.map(\.device) == [device.id])
    }

    @Test("a driver that stops is restarted, and a bad read does not stop it")
    func restartsStoppedDriver() async throws {
        let bridge = makeBridge()
        let device = self.device
        let driver = ScriptedDriver { run in
            // An empty barcode is invalid: logged, never fatal.
            [.device(device), .read(barcodeRead("", device: device.id)), .read(barcodeRead("run \(run)", device: device.id))]
        }
        let host = DriverHost(
            drivers: [driver], bridge: bridge, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
            restartDelay: .milliseconds(5))
        let running = Task { await host.run() }
        defer { running.cancel() }  // also when the wait fails: the driver is restarted every 5 ms
        try await waitUntil("the driver's third run; it ran \(driver.runCount) times") { driver.runCount >= 3 }
        running.cancel()
        await running.value
        let journaled = try await bridge.journal.recent(limit: 10, kinds: nil).count
        #expect(journaled >= 2, "every run's valid read was journaled")
    }
}

/// Holds the resolving of one device's reads until opened.
final class GatedHandler: ScanHandler {
    let name = "gated"
    let priority = 10
    let device: String
    private let state = Mutex((open: false, waiting: [CheckedContinuation<Void, Never>]()))

    init(device: String) {
        self.device = device
    }

    var waiting: Int { state.withLock { $0.waiting.count } }

    func accepts(_ event: ScanEvent) -> Bool { event.device == device }

    func resolve(_ event: ScanEvent) async throws -> Resolution {
        await withCheckedContinuation { continuation in
            let open = state.withLock { state in
                if !state.open { state.waiting.append(continuation) }
                return state.open
            }
            if open { continuation.resume() }
        }
        return Resolution(handler: name, status: "found")
    }

    func open() {
        let waiting = state.withLock { state in
            state.open = true
            defer { state.waiting = [] }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }
}

@Suite("DriverHost lanes")
struct DriverHostLaneTests {
    static let quiet = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
    let slow = Device(id: "scripted:slow", driver: "scripted", kind: .barcode, name: "Slow")
    let fast = Device(id: "scripted:fast", driver: "scripted", kind: .barcode, name: "Fast")

    func host(_ bridge: Bridge, events: [DriverEvent], readsPerDevice: Int = 1024, readsWait: Bool = false)
        -> DriverHost
    {
        DriverHost(
            drivers: [ScriptedDriver(readsWait: readsWait) { $0 == 1 ? events : [] }], bridge: bridge, logger: Self.quiet,
            restartDelay: .seconds(60), readsPerDevice: readsPerDevice)
    }

    @Test("a read waiting on a slow handler holds up its own device only")
    func slowDeviceHoldsUpNoOther() async throws {
        let gated = GatedHandler(device: slow.id)
        let bridge = makeBridge(handlers: [gated])
        let host = host(
            bridge,
            events: [
                .device(slow), .device(fast), .read(barcodeRead("slow-1", device: slow.id)),
                .read(barcodeRead("slow-2", device: slow.id)), .read(barcodeRead("fast-1", device: fast.id)),
            ])
        let running = Task { await host.run() }
        defer { running.cancel() }
        try await waitUntil("the fast device's read journaled while the slow one waits") {
            try await bridge.journal.recent(limit: 10, kinds: nil).map(\.device) == [fast.id]
        }
        #expect(gated.waiting == 1)
        gated.open()
        try await waitUntil("the slow device's reads, in order") {
            try await bridge.journal.recent(limit: 10, kinds: nil).count == 3
        }
        let texts = try await bridge.journal.recent(limit: 10, kinds: nil).map { String(decoding: $0.json, as: UTF8.self) }
        #expect(texts[1].contains("slow-1") && texts[2].contains("slow-2"))
    }

    @Test("a burst of one device's reads is journaled in order, the reads waiting sharing a commit")
    func burstSharesCommits() async throws {
        let gated = GatedHandler(device: slow.id)
        let publisher = Publisher()
        let commits = Mutex<[Int]>([])
        let journal = MemoryJournal { batch in
            commits.withLock { $0.append(batch.count) }
            publisher.publish(batch)
        }
        let bridge = Bridge(journal: journal, publisher: publisher, router: Router(handlers: [gated]))
        let reads = (1...100).map { DriverEvent.read(barcodeRead("slow-\($0)", device: slow.id)) }
        let running = Task { await host(bridge, events: [.device(slow)] + reads).run() }
        defer { running.cancel() }
        try await waitUntil("the first read waits on its handler, the others behind it") {
            gated.waiting == 1 && bridge.spool.count == 100
        }
        gated.open()
        try await waitUntil("every read journaled") {
            try await bridge.journal.recent(limit: 200, kinds: nil).count == 100
        }
        let texts = try await bridge.journal.recent(limit: 200, kinds: nil).map { String(decoding: $0.json, as: UTF8.self) }
        #expect(zip(texts, 1...100).allSatisfy { $0.contains("\"slow-\($1)\"") }, "in the order read")
        let sizes = commits.withLock { $0 }
        #expect(sizes.count <= 3 && sizes.allSatisfy { $0 <= 64 }, "commits of \(sizes) reads")
    }

    @Test("a device that outruns its lane has the newest reads dropped, shows an error, and recovers")
    func laneBound() async throws {
        let gated = GatedHandler(device: slow.id)
        let bridge = makeBridge(handlers: [gated])
        let reads = (1...5).map { DriverEvent.read(barcodeRead("slow-\($0)", device: slow.id)) }
        let running = Task { await host(bridge, events: [.device(slow)] + reads, readsPerDevice: 2).run() }
        defer { running.cancel() }
        try await waitUntil("the device in error") { bridge.registry.device(slow.id)?.state == .error }
        #expect(bridge.registry.device(slow.id)?.error?.contains("faster than they can be recorded") == true)
        gated.open()
        try await waitUntil("the device ready again") { bridge.registry.device(slow.id)?.state == .ready }
        let texts = try await bridge.journal.recent(limit: 10, kinds: nil).map { String(decoding: $0.json, as: UTF8.self) }
        #expect(texts.count == 2)
        #expect(texts[0].contains("slow-1") && texts[1].contains("slow-2"), "the oldest are kept, in order")
    }

    @Test("a driver whose reads can wait (a script) has them wait for room in a full lane, none dropped")
    func waitingReadsAreKept() async throws {
        let gated = GatedHandler(device: slow.id)
        let bridge = makeBridge(handlers: [gated])
        let reads = (1...5).map { DriverEvent.read(barcodeRead("slow-\($0)", device: slow.id)) }
        let running = Task {
            await host(bridge, events: [.device(slow)] + reads, readsPerDevice: 2, readsWait: true).run()
        }
        defer { running.cancel() }
        try await waitUntil("the lane full behind the first read") { gated.waiting == 1 && bridge.spool.count == 2 }
        #expect(bridge.registry.device(slow.id)?.state == .ready, "no read dropped")
        gated.open()
        try await waitUntil("every read journaled") { try await bridge.journal.recent(limit: 10, kinds: nil).count == 5 }
        let texts = try await bridge.journal.recent(limit: 10, kinds: nil).map { String(decoding: $0.json, as: UTF8.self) }
        #expect(zip(texts, 1...5).allSatisfy { $0.contains("\"slow-\($1)\"") }, "in the order read")
    }

    @Test("when the host stops, the reads it took are still recorded before run() returns")
    func stopDrains() async throws {
        let gated = GatedHandler(device: slow.id)
        let bridge = makeBridge(handlers: [gated])
        let reads = (1...3).map { DriverEvent.read(barcodeRead("slow-\($0)", device: slow.id)) }
        let running = Task { await host(bridge, events: [.device(slow)] + reads).run() }
        try await waitUntil("the first read waits on its handler") { gated.waiting == 1 }
        running.cancel()
        gated.open()
        await running.value
        #expect(try await bridge.journal.recent(limit: 10, kinds: nil).count == 3)
    }
}
