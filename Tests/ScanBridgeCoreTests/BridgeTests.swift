import Foundation
import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeTesting
import Synchronization
import Testing

/// A bridge on a memory journal whose commits feed the publisher, as the daemon wires it.
func makeBridge(retention: Int = .max, handlers: [any ScanHandler] = []) -> Bridge {
    let publisher = Publisher()
    let journal = MemoryJournal(retention: retention) { publisher.publish($0) }
    return Bridge(journal: journal, publisher: publisher, router: Router(handlers: handlers))
}

@Suite("Bridge")
struct BridgeTests {
    @Test("ingest normalises, resolves, journals and publishes")
    func ingest() async throws {
        let bridge = makeBridge(handlers: [StubHandler(name: "product-lookup", priority: 0)])
        let sink = RecordingSink()
        _ = bridge.publisher.subscribe(id: "s1", filter: .all, sink: sink, replaying: false)
        let stored = try await bridge.ingest(barcodeRead("5901234123457"))
        #expect(stored.seq == 1)
        #expect(stored.kind == .barcode)
        #expect(stored.device == "mock:barcode-1")
        let event = try JSONDecoder().decode(ScanEvent.self, from: Data(stored.json))
        #expect(event.seq == 1)
        #expect(event.symbology == "ean-13")
        #expect(event.resolution.handler == "product-lookup")
        #expect(event.resolution.status == "found")
        #expect(sink.eventSeqs == [1])
        #expect(bridge.journal.latestSeq == 1)
        #expect(bridge.publisher.lastSeq == 1)
        #expect(try await bridge.ingest(barcodeRead("x")).seq == 2)
    }

    @Test("reads ingested together are resolved and journaled in order; an invalid one fails alone")
    func ingestMany() async throws {
        let bridge = makeBridge(handlers: [StubHandler(name: "product-lookup", priority: 0)])
        let sink = RecordingSink()
        _ = bridge.publisher.subscribe(id: "s1", filter: .all, sink: sink, replaying: false)
        let outcomes = await bridge.ingest([
            barcodeRead("5901234123457"), RawRead(device: "mock:nfc-1", driver: "mock", kind: .nfc), barcodeRead("x"),
        ])
        let first = try outcomes[0].get()
        let third = try outcomes[2].get()
        #expect((first.seq, third.seq) == (1, 2), "the invalid read takes no seq")
        #expect(throws: ScanBridgeError.self) { try outcomes[1].get() }
        let event = try JSONDecoder().decode(ScanEvent.self, from: Data(first.json))
        #expect(event.resolution.handler == "product-lookup" && event.resolution.status == "found")
        #expect(sink.eventSeqs == [1, 2])
        #expect(await bridge.ingest([]).isEmpty)
    }

    @Test("an invalid read is rejected and takes no seq")
    func invalidRead() async throws {
        let bridge = makeBridge()
        await #expect(throws: ScanBridgeError.self) {
            try await bridge.ingest(RawRead(device: "mock:nfc-1", driver: "mock", kind: .nfc))
        }
        #expect(bridge.journal.latestSeq == 0)
        #expect(try await bridge.ingest(barcodeRead("x")).seq == 1)
    }

    @Test("a subscription with since gets every later seq once, in order, then live events")
    func replayThenLive() async throws {
        let bridge = makeBridge()
        for index in 1...5 { _ = try await bridge.ingest(barcodeRead("item \(index)")) }
        let sink = RecordingSink()
        let (subscription, head) = bridge.publisher.subscribe(id: "s1", filter: .all, sink: sink, replaying: true)
        #expect(head == 5)
        // Live events arrive while the replay runs.
        async let live: Void = {
            for index in 6...200 { _ = try await bridge.ingest(barcodeRead("item \(index)")) }
        }()
        try await bridge.replay(subscription, after: 2, through: head)
        try await live
        _ = try await bridge.ingest(barcodeRead("after"))
        #expect(sink.eventSeqs == Array(3...201))
        #expect(sink.notices.isEmpty)
    }

    @Test("a replay waiting for a slow client stops at once when the subscription closes: nothing follows")
    func replayStopsOnClose() async throws {
        let bridge = makeBridge()
        for index in 1...5 { _ = try await bridge.ingest(barcodeRead("item \(index)")) }
        let sink = RecordingSink(capacity: 2)
        let (subscription, head) = bridge.publisher.subscribe(id: "s1", filter: .all, sink: sink, replaying: true)
        let replay = Task { try await bridge.replay(subscription, after: 0, through: head) }
        try await waitUntil("the replay fills the queue") { sink.eventSeqs == [1, 2] }
        bridge.publisher.remove(subscription)
        sink.wake(draining: true)
        try await replay.value
        #expect(sink.eventSeqs == [1, 2])
        #expect(sink.overflows.isEmpty)
    }

    @Test("live events published while a replay waits on a slow client are read from the journal: none lost, none held")
    func slowReplayCatchesUp() async throws {
        let bridge = makeBridge()
        for index in 1...50 { _ = try await bridge.ingest(barcodeRead("item \(index)")) }
        let sink = RecordingSink(capacity: 3)
        let (subscription, head) = bridge.publisher.subscribe(id: "s1", filter: .all, sink: sink, replaying: true)
        let replay = Task { try await bridge.replay(subscription, after: 0, through: head) }
        try await waitUntil("the replay waits for the client") { sink.eventSeqs.count == 3 }
        for index in 51...300 { _ = try await bridge.ingest(barcodeRead("item \(index)")) }
        #expect(sink.eventSeqs.count == 3, "nothing published meanwhile was queued or held")
        // The client reads again, as fast as it can.
        let reader = Task {
            while !Task.isCancelled {
                sink.drain()
                await Task.yield()
            }
        }
        defer { reader.cancel() }
        try await waitUntil("the replay catches up") { sink.eventSeqs.count >= 300 }
        try await replay.value
        #expect(sink.eventSeqs == Array(1...300))
        #expect(sink.overflows.isEmpty)
        #expect(!subscription.isReplaying)
    }

    @Test("a replay spanning several pages misses nothing")
    func replayPages() async throws {
        let bridge = makeBridge()
        for index in 1...1100 { _ = try await bridge.ingest(barcodeRead("item \(index)")) }
        let sink = RecordingSink()
        let (subscription, head) = bridge.publisher.subscribe(id: "s1", filter: .all, sink: sink, replaying: true)
        try await bridge.replay(subscription, after: 0, through: head)
        #expect(sink.eventSeqs == Array(1...1100))
    }

    @Test("a replay honours the subscription's filter")
    func replayFiltered() async throws {
        let bridge = makeBridge()
        for index in 1...6 {
            if index.isMultiple(of: 2) {
                _ = try await bridge.ingest(
                    RawRead(device: "mock:nfc-1", driver: "mock", kind: .nfc, uid: [1, 2, 3, UInt8(index)]))
            } else {
                _ = try await bridge.ingest(barcodeRead("item \(index)"))
            }
        }
        let sink = RecordingSink()
        let (subscription, head) = bridge.publisher.subscribe(
            id: "s1", filter: SubscriptionFilter(kinds: [.nfc]), sink: sink, replaying: true)
        try await bridge.replay(subscription, after: 0, through: head)
        _ = try await bridge.ingest(barcodeRead("live barcode"))
        _ = try await bridge.ingest(RawRead(device: "mock:nfc-1", driver: "mock", kind: .nfc, uid: [9, 9, 9, 9]))
        #expect(sink.eventSeqs == [2, 4, 6, 8])
    }

    @Test("since at or past the head replays nothing and goes live")
    func sinceAtHead() async throws {
        let bridge = makeBridge()
        for index in 1...3 { _ = try await bridge.ingest(barcodeRead("item \(index)")) }
        for since: UInt64 in [3, 10] {
            let sink = RecordingSink()
            let (subscription, head) = bridge.publisher.subscribe(id: "s\(since)", filter: .all, sink: sink, replaying: true)
            try await bridge.replay(subscription, after: since, through: head)
            let next = try await bridge.ingest(barcodeRead("live"))
            #expect(sink.messages == [.event(next.seq)])
        }
    }

    @Test("events older than the retention are reported as a gap, then the rest is replayed")
    func gap() async throws {
        let bridge = makeBridge(retention: 3)
        for index in 1...10 { _ = try await bridge.ingest(barcodeRead("item \(index)")) }
        #expect(try await bridge.journal.oldestRetainedSeq() == 8)
        let sink = RecordingSink()
        let (subscription, head) = bridge.publisher.subscribe(id: "s1", filter: .all, sink: sink, replaying: true)
        try await bridge.replay(subscription, after: 2, through: head)
        #expect(sink.messages == [.notice(.gap(from: 3, to: 7)), .event(8), .event(9), .event(10)])
    }

    @Test("no gap when the journal still holds everything after since")
    func noGap() async throws {
        let bridge = makeBridge(retention: 3)
        for index in 1...10 { _ = try await bridge.ingest(barcodeRead("item \(index)")) }
        let sink = RecordingSink()
        let (subscription, head) = bridge.publisher.subscribe(id: "s1", filter: .all, sink: sink, replaying: true)
        try await bridge.replay(subscription, after: 7, through: head)
        #expect(sink.messages == [.event(8), .event(9), .event(10)])
    }

    @Test("events retention prunes while a replay reads them are a gap too, never skipped")
    func prunedDuringTheReplay() async throws {
        let publisher = Publisher()
        let journal = PruningOnRead(MemoryJournal { publisher.publish($0) }, pruneThrough: 5)
        let bridge = Bridge(journal: journal, publisher: publisher, router: Router(handlers: []))
        for index in 1...8 { _ = try await bridge.ingest(barcodeRead("item \(index)")) }
        let sink = RecordingSink()
        let (subscription, head) = bridge.publisher.subscribe(id: "s1", filter: .all, sink: sink, replaying: true)
        try await bridge.replay(subscription, after: 2, through: head)
        #expect(sink.messages == [.notice(.gap(from: 3, to: 5)), .event(6), .event(7), .event(8)])
    }

    @Test("a journal that kept nothing reports the whole range as a gap")
    func everythingPruned() async throws {
        let bridge = makeBridge(retention: 0)
        for index in 1...4 { _ = try await bridge.ingest(barcodeRead("item \(index)")) }
        #expect(try await bridge.journal.oldestRetainedSeq() == nil)
        let sink = RecordingSink()
        let (subscription, head) = bridge.publisher.subscribe(id: "s1", filter: .all, sink: sink, replaying: true)
        try await bridge.replay(subscription, after: 1, through: head)
        let live = try await bridge.ingest(barcodeRead("live"))
        #expect(sink.messages == [.notice(.gap(from: 2, to: 4)), .event(live.seq)])
    }
}

@Suite("MemoryJournal")
struct MemoryJournalTests {
    @Test("seq, retention, events(after:through:) and recent")
    func contract() async throws {
        let committed = RecordingCommits()
        let journal = MemoryJournal(retention: 5) { committed.add($0) }
        #expect(try await journal.oldestRetainedSeq() == nil)
        for index in 0..<8 {
            let kind: DeviceKind = index.isMultiple(of: 2) ? .barcode : .nfc
            let stored = try await journal.append(scanEvent(kind: kind, device: "dev\(index % 3)"))
            #expect(stored.seq == UInt64(index + 1))
        }
        #expect(committed.seqs == Array(1...8))
        #expect(journal.latestSeq == 8)
        #expect(try await journal.oldestRetainedSeq() == 4)
        let all = try await journal.events(after: 0, through: 8, filter: .all, limit: 100)
        #expect(all.map(\.seq) == [4, 5, 6, 7, 8])
        let nfc = try await journal.events(after: 4, through: 7, filter: SubscriptionFilter(kinds: [.nfc]), limit: 100)
        #expect(nfc.map(\.seq) == [6])
        #expect(try await journal.events(after: 0, through: 8, filter: .all, limit: 2).map(\.seq) == [4, 5])
        #expect(try await journal.recent(limit: 2, kinds: nil).map(\.seq) == [7, 8])
        #expect(try await journal.recent(limit: 10, kinds: [.barcode]).map(\.seq) == [5, 7])
    }
}

/// A journal whose retention prunes the events through `pruneThrough` just as the first
/// replay page is read: after the gap was measured, before the page.
private final class PruningOnRead: Journal {
    private let inner: MemoryJournal
    private let pruneThrough: UInt64
    private let pruned = Mutex(false)

    init(_ inner: MemoryJournal, pruneThrough: UInt64) {
        self.inner = inner
        self.pruneThrough = pruneThrough
    }

    var latestSeq: UInt64 { inner.latestSeq }

    func append(contentsOf events: [ScanEvent]) async throws -> [JournaledEvent] {
        try await inner.append(contentsOf: events)
    }

    func events(after: UInt64, through: UInt64, filter: SubscriptionFilter, limit: Int, maxBytes: Int) async throws
        -> [JournaledEvent]
    {
        pruned.withLock { $0 = true }
        return try await inner.events(
            after: max(after, pruneThrough), through: through, filter: filter, limit: limit, maxBytes: maxBytes)
    }

    func recent(limit: Int, kinds: Set<DeviceKind>?, maxBytes: Int) async throws -> [JournaledEvent] {
        try await inner.recent(limit: limit, kinds: kinds, maxBytes: maxBytes)
    }

    func oldestRetainedSeq() async throws -> UInt64? {
        let oldest = try await inner.oldestRetainedSeq()
        return pruned.withLock { $0 } ? oldest.map { max($0, pruneThrough + 1) } : oldest
    }

    func rewrite(containing needle: [UInt8], _ rewrite: @escaping @Sendable (ScanEvent) -> ScanEvent?) async throws -> Int {
        try await inner.rewrite(containing: needle, rewrite)
    }
}
