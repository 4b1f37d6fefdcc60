import Foundation
import GRDB
import Logging
import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeStore
import Synchronization
import Testing

/// A database file in its own temporary folder, removed at the end.
struct TemporaryDatabase: ~Copyable {
    let folder: URL
    var path: String { folder.appendingPathComponent("scanbridge.sqlite").path }

    init() throws {
        folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("scanbridge-store-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: folder)
    }
}

/// Records every committed batch.
final class CommitLog: Sendable {
    private let state = Mutex<[[UInt64]]>([])
    func add(_ events: [JournaledEvent]) { state.withLock { $0.append(events.map(\.seq)) } }
    var batches: [[UInt64]] { state.withLock { $0 } }
    var seqs: [UInt64] { batches.flatMap { $0 } }
}

let quietLogger: Logger = {
    var logger = Logger(label: "scanbridge.tests.store")
    logger.logLevel = .critical
    return logger
}()

func openJournal(
    _ path: String, retention: JournalRetention = JournalRetention(), log: CommitLog = CommitLog()
) throws -> SQLiteJournal {
    try SQLiteJournal(database: StoreDatabase(path: path), retention: retention, logger: quietLogger) { log.add($0) }
}

func event(_ index: Int, kind: DeviceKind = .barcode, device: String = "mock:barcode-1", time: Date = Date()) -> ScanEvent {
    ScanEvent(
        id: "event-\(index)-\(UUID().uuidString)", time: time, device: device, driver: "mock", kind: kind,
        symbology: kind == .nfc ? "iso14443a" : "unknown", text: "item \(index)")
}

func decode(_ stored: JournaledEvent) throws -> ScanEvent {
    try JSONDecoder().decode(ScanEvent.self, from: Data(stored.json))
}

/// Makes SQLite refuse, through another connection, every event `refusedEvent` makes, as a
/// full disk or a broken file would; drop the trigger `refuse` to end it.
func refuseEvents(in path: String) async throws -> DatabaseQueue {
    let other = try DatabaseQueue(path: path)
    try await other.write { db in
        try db.execute(
            sql: """
                CREATE TRIGGER refuse BEFORE INSERT ON event WHEN NEW.id LIKE 'refused-%'
                BEGIN SELECT RAISE(ABORT, 'refused by the test'); END
                """)
    }
    return other
}

func refusedEvent(_ index: Int) -> ScanEvent {
    var refused = event(index)
    refused.id = "refused-\(refused.id)"
    return refused
}

@Suite("SQLiteJournal")
struct SQLiteJournalTests {
    @Test("the file is a real SQLite database with the journal table")
    func schema() throws {
        let file = try TemporaryDatabase()
        let database = try StoreDatabase(path: file.path)
        #expect(FileManager.default.fileExists(atPath: file.path))
        #expect(try database.pool.read { try $0.tableExists("event") })
        #expect(try database.pool.read { try String.fetchOne($0, sql: "PRAGMA journal_mode") } == "wal")
    }

    @Test("the database folder is created when missing")
    func createsFolder() throws {
        let file = try TemporaryDatabase()
        let nested = file.folder.appendingPathComponent("a/b/store.sqlite").path
        _ = try openJournal(nested)
        #expect(FileManager.default.fileExists(atPath: nested))
    }

    @Test("seq starts at 1 and each event is stored with its seq")
    func firstSeq() async throws {
        let file = try TemporaryDatabase()
        let log = CommitLog()
        let journal = try openJournal(file.path, log: log)
        #expect(journal.latestSeq == 0)
        #expect(try await journal.oldestRetainedSeq() == nil)
        let original = event(1, kind: .nfc, device: "mock:nfc-1")
        let stored = try await journal.append(original)
        #expect(stored.seq == 1)
        #expect(stored.kind == .nfc)
        #expect(stored.device == "mock:nfc-1")
        var expected = original
        expected.seq = 1
        let decoded = try decode(stored)
        #expect(decoded.id == expected.id)
        #expect(decoded.seq == 1)
        #expect(decoded.text == expected.text)
        #expect(journal.latestSeq == 1)
        #expect(log.seqs == [1])
        #expect(try await journal.oldestRetainedSeq() == 1)
        let read = try await journal.events(after: 0, through: 1, filter: .all, limit: 10)
        #expect(read == [stored])
    }

    @Test("2,000 concurrent appends get gap-free seqs, each committed once in order")
    func concurrentAppends() async throws {
        let file = try TemporaryDatabase()
        let log = CommitLog()
        let journal = try openJournal(file.path, log: log)
        let count = 2000
        let results = try await withThrowingTaskGroup(of: (String, JournaledEvent).self) { group in
            for index in 0..<count {
                group.addTask {
                    let original = event(index)
                    return (original.id, try await journal.append(original))
                }
            }
            var results: [(String, JournaledEvent)] = []
            for try await result in group { results.append(result) }
            return results
        }
        let seqs = results.map(\.1.seq).sorted()
        #expect(seqs == Array(1...UInt64(count)))
        // Every caller got back its own event.
        for (id, stored) in results {
            let decoded = try decode(stored)
            #expect(decoded.id == id)
            #expect(decoded.seq == stored.seq)
        }
        #expect(log.seqs == Array(1...UInt64(count)))
        #expect(log.batches.allSatisfy { !$0.isEmpty })
        #expect(journal.latestSeq == UInt64(count))
        let stored = try await journal.events(after: 0, through: UInt64(count), filter: .all, limit: count + 10)
        #expect(stored.map(\.seq) == Array(1...UInt64(count)))
        #expect(Set(stored.map { try! decode($0).id }) == Set(results.map(\.0)))
    }

    @Test("events appended together commit together, with consecutive seqs, among single appends")
    func groupAppends() async throws {
        let file = try TemporaryDatabase()
        let log = CommitLog()
        let journal = try openJournal(file.path, log: log)
        #expect(try await journal.append(contentsOf: []).isEmpty)
        let groups = try await withThrowingTaskGroup(of: [UInt64].self) { group in
            for index in 0..<20 {
                group.addTask { try await journal.append(contentsOf: (0..<50).map { event(index * 100 + $0) }).map(\.seq) }
                group.addTask { [try await journal.append(event(index * 100 + 99)).seq] }
            }
            var groups: [[UInt64]] = []
            for try await seqs in group where seqs.count > 1 { groups.append(seqs) }
            return groups
        }
        #expect(log.seqs == Array(1...1020))
        for seqs in groups {
            #expect(seqs == Array(seqs[0]...seqs[0] + 49))
            #expect(log.batches.contains { $0.contains(seqs[0]) && $0.contains(seqs[49]) }, "one commit")
        }
    }

    @Test("a commit that fails fails every event appended with it, and burns no seq")
    func failedGroup() async throws {
        let file = try TemporaryDatabase()
        let journal = try openJournal(file.path)
        _ = try await journal.append(event(1))
        let other = try await refuseEvents(in: file.path)
        let refused = refusedEvent(2)
        let error = await #expect(throws: JournalWriteFailure.self) {
            try await journal.append(contentsOf: [event(3), refused])
        }
        #expect(error?.error.code == .unavailable && error?.error.message.contains("refused by the test") == true)
        #expect(journal.latestSeq == 1)
        try await other.write { try $0.execute(sql: "DROP TRIGGER refuse") }
        #expect(try await journal.append(contentsOf: [event(4), event(5)]).map(\.seq) == [2, 3])
        #expect(try await journal.events(after: 0, through: 10, filter: .all, limit: 10).map(\.seq) == [1, 2, 3])
    }

    @Test("a lone event that SQLite refuses (its own autocommit insert) fails alone and burns no seq")
    func failedLoneEvent() async throws {
        let file = try TemporaryDatabase()
        let journal = try openJournal(file.path)
        _ = try await journal.append(event(1))
        _ = try await refuseEvents(in: file.path)
        let refused = refusedEvent(2)
        let error = await #expect(throws: JournalWriteFailure.self) { try await journal.append(refused) }
        #expect(error?.error.code == .unavailable && error?.error.message.contains("refused by the test") == true)
        #expect(journal.latestSeq == 1)
        #expect(try await journal.append(event(3)).seq == 2)
        #expect(try await journal.events(after: 0, through: 10, filter: .all, limit: 10).map(\.seq) == [1, 2])
    }

    @Test("reopening the file continues the sequence")
    func reopen() async throws {
        let file = try TemporaryDatabase()
        do {
            let journal = try openJournal(file.path)
            for index in 1...5 { _ = try await journal.append(event(index)) }
        }
        let log = CommitLog()
        let journal = try openJournal(file.path, log: log)
        #expect(journal.latestSeq == 5)
        #expect(try await journal.append(event(6)).seq == 6)
        #expect(log.seqs == [6])
        #expect(try await journal.events(after: 0, through: 6, filter: .all, limit: 100).map(\.seq) == Array(1...6))
    }

    @Test("retention by count drops the oldest rows when the journal opens")
    func retentionByCount() async throws {
        let file = try TemporaryDatabase()
        do {
            let journal = try openJournal(file.path)
            for index in 1...50 { _ = try await journal.append(event(index)) }
            #expect(try await journal.oldestRetainedSeq() == 1)
        }
        let journal = try openJournal(file.path, retention: JournalRetention(maxEvents: 10))
        #expect(try await journal.oldestRetainedSeq() == 41)
        #expect(try await journal.events(after: 0, through: 50, filter: .all, limit: 100).map(\.seq) == Array(41...50))
        #expect(try await journal.recent(limit: 100, kinds: nil).map(\.seq) == Array(41...50))
        #expect(try await journal.append(event(51)).seq == 51)
    }

    @Test("retention also prunes while the journal runs")
    func retentionWhileRunning() async throws {
        let file = try TemporaryDatabase()
        let journal = try openJournal(file.path, retention: JournalRetention(maxEvents: 100))
        for index in 1...1100 { _ = try await journal.append(event(index)) }
        // Pruning runs after each batch is delivered, so the last one may still be on its way:
        // retention holds within a tenth of its size.
        let kept = try await journal.events(after: 0, through: 1100, filter: .all, limit: 2000)
        let oldest = try #require(kept.first?.seq)
        #expect(oldest > 1)
        #expect(kept.count <= 110)
        #expect(kept.last?.seq == 1100)
        #expect(kept.map(\.seq) == Array(oldest...1100), "what is kept has no hole")
    }

    @Test("retention keeps the events a copy elsewhere has not taken yet")
    func retentionHoldsWhatIsNotCopied() async throws {
        let file = try TemporaryDatabase()
        let journal = try openJournal(file.path, retention: JournalRetention(maxEvents: 100))
        journal.hold(after: 300)
        for index in 1...1100 { _ = try await journal.append(event(index)) }
        let oldest = try #require(try await journal.oldestRetainedSeq())
        #expect(oldest > 1 && oldest <= 301, "events 301 on are held: \(oldest)")
        journal.hold(after: 1100)
        for index in 1101...1300 { _ = try await journal.append(event(index)) }
        #expect(try #require(try await journal.oldestRetainedSeq()) > 1000, "once copied, retention drops them")
    }

    @Test("a wall clock stepped back never lets an age prune drop an event newer than the cutoff")
    func clockSteppedBack() async throws {
        let file = try TemporaryDatabase()
        let now = Date()
        do {
            let journal = try openJournal(file.path)
            // An old event, one now, then two after the clock was stepped back over four hours:
            // the first of them older than the newest one's time minus retention.
            for (index, minutesAgo) in [300.0, 0, 250, 180].enumerated() {
                _ = try await journal.append(event(index + 1, time: now.addingTimeInterval(-minutesAgo * 60)))
            }
        }
        let journal = try openJournal(file.path, retention: JournalRetention(maxAge: .seconds(3600)))
        let kept = try await journal.events(after: 0, through: 4, filter: .all, limit: 10).map(\.seq)
        #expect(kept == [2, 3, 4], "only the event older than the cutoff, before the newer one, goes")
    }

    @Test("a wall clock stepped forward drops no more than retention counted from the newest event")
    func clockSteppedForward() async throws {
        let file = try TemporaryDatabase()
        let stepped = Date().addingTimeInterval(-3 * 3600)
        do {
            let journal = try openJournal(file.path)
            // Written three hours "ago": the clock has jumped three hours since.
            for (index, minutesBefore) in [90.0, 30, 0].enumerated() {
                _ = try await journal.append(event(index + 1, time: stepped.addingTimeInterval(-minutesBefore * 60)))
            }
        }
        let journal = try openJournal(file.path, retention: JournalRetention(maxAge: .seconds(3600)))
        let kept = try await journal.events(after: 0, through: 3, filter: .all, limit: 10).map(\.seq)
        #expect(kept == [2, 3], "an hour back from the newest event, not from the stepped clock")
    }

    @Test("the sequence continues after a reopen even when every row was pruned")
    func sequenceSurvivesEmptyTable() async throws {
        let file = try TemporaryDatabase()
        do {
            let journal = try openJournal(file.path)
            for index in 1...7 { _ = try await journal.append(event(index)) }
        }
        do {
            let journal = try openJournal(file.path, retention: JournalRetention(maxEvents: 0))
            #expect(try await journal.oldestRetainedSeq() == nil)
            #expect(try await journal.recent(limit: 10, kinds: nil).isEmpty)
            #expect(journal.latestSeq == 7)
        }
        let journal = try openJournal(file.path)
        #expect(journal.latestSeq == 7)
        #expect(try await journal.append(event(8)).seq == 8)
        #expect(try await journal.oldestRetainedSeq() == 8)
    }

    @Test("retention by age drops old events when the journal opens")
    func retentionByAge() async throws {
        let file = try TemporaryDatabase()
        do {
            let journal = try openJournal(file.path)
            let old = Date().addingTimeInterval(-3 * 3600)
            for index in 1...3 { _ = try await journal.append(event(index, time: old)) }
            for index in 4...5 { _ = try await journal.append(event(index)) }
        }
        let journal = try openJournal(file.path, retention: JournalRetention(maxAge: .seconds(3600)))
        #expect(try await journal.oldestRetainedSeq() == 4)
        #expect(try await journal.append(event(6)).seq == 6)
    }

    @Test("events(after:through:filter:limit:) selects by range, kind, device and limit")
    func eventsQuery() async throws {
        let file = try TemporaryDatabase()
        let journal = try openJournal(file.path)
        // seq: 1 nfc/r1, 2 barcode/s1, 3 qr/c1, 4 nfc/r2, 5 barcode/s1, 6 qr/c1, 7 nfc/r1, 8 barcode/s2, 9 qr/c1
        let layout: [(DeviceKind, String)] = [
            (.nfc, "r1"), (.barcode, "s1"), (.qr, "c1"), (.nfc, "r2"), (.barcode, "s1"), (.qr, "c1"),
            (.nfc, "r1"), (.barcode, "s2"), (.qr, "c1"),
        ]
        for (index, (kind, device)) in layout.enumerated() {
            _ = try await journal.append(event(index, kind: kind, device: device))
        }
        func seqs(after: UInt64 = 0, through: UInt64 = 9, _ filter: SubscriptionFilter = .all, limit: Int = 100)
            async throws -> [UInt64]
        {
            try await journal.events(after: after, through: through, filter: filter, limit: limit).map(\.seq)
        }
        #expect(try await seqs() == Array(1...9))
        #expect(try await seqs(after: 3, through: 6) == [4, 5, 6])
        #expect(try await seqs(after: 9) == [])
        #expect(try await seqs(limit: 4) == [1, 2, 3, 4])
        #expect(try await seqs(after: 2, limit: 2) == [3, 4])
        #expect(try await seqs(SubscriptionFilter(kinds: [.nfc])) == [1, 4, 7])
        #expect(try await seqs(SubscriptionFilter(kinds: [.nfc, .qr])) == [1, 3, 4, 6, 7, 9])
        #expect(try await seqs(SubscriptionFilter(devices: ["s1", "r2"])) == [2, 4, 5])
        #expect(try await seqs(SubscriptionFilter(kinds: [.nfc], devices: ["r1"])) == [1, 7])
        #expect(try await seqs(after: 1, through: 8, SubscriptionFilter(kinds: [.qr]), limit: 1) == [3])
        #expect(try await seqs(SubscriptionFilter(kinds: [], devices: nil)) == [])
        #expect(try await seqs(SubscriptionFilter(devices: ["nobody"])) == [])
        let stored = try await journal.events(after: 7, through: 8, filter: .all, limit: 1)
        #expect(stored.first?.kind == .barcode)
        #expect(stored.first?.device == "s2")
        #expect(try stored.first.map(decode)?.seq == 8)
    }

    @Test("recent(limit:kinds:) gives the newest events, oldest first")
    func recentQuery() async throws {
        let file = try TemporaryDatabase()
        let journal = try openJournal(file.path)
        #expect(try await journal.recent(limit: 5, kinds: nil).isEmpty)
        let kinds: [DeviceKind] = [.nfc, .barcode, .qr, .nfc, .barcode, .qr, .nfc]
        for (index, kind) in kinds.enumerated() { _ = try await journal.append(event(index, kind: kind)) }
        #expect(try await journal.recent(limit: 3, kinds: nil).map(\.seq) == [5, 6, 7])
        #expect(try await journal.recent(limit: 100, kinds: nil).map(\.seq) == Array(1...7))
        #expect(try await journal.recent(limit: 2, kinds: [.nfc]).map(\.seq) == [4, 7])
        #expect(try await journal.recent(limit: 10, kinds: [.barcode, .qr]).map(\.seq) == [2, 3, 5, 6])
        #expect(try await journal.recent(limit: 10, kinds: []).isEmpty)
        let newest = try await journal.recent(limit: 1, kinds: nil)
        #expect(try newest.map(decode).map(\.seq) == [7])
    }

    @Test("oldestRetainedSeq follows retention")
    func oldestRetained() async throws {
        let file = try TemporaryDatabase()
        do {
            let journal = try openJournal(file.path)
            #expect(try await journal.oldestRetainedSeq() == nil)
            for index in 1...20 { _ = try await journal.append(event(index)) }
            #expect(try await journal.oldestRetainedSeq() == 1)
        }
        let journal = try openJournal(file.path, retention: JournalRetention(maxEvents: 5))
        #expect(try await journal.oldestRetainedSeq() == 16)
    }

    @Test("the journal feeds a publisher: subscribers see every seq once, in order")
    func feedsPublisher() async throws {
        let file = try TemporaryDatabase()
        let publisher = Publisher()
        let journal = try SQLiteJournal(database: StoreDatabase(path: file.path), logger: quietLogger) {
            publisher.publish($0)
        }
        let bridge = Bridge(journal: journal, publisher: publisher, router: Router())
        let log = CommitLog()
        let sink = SeqSink(log: log)
        _ = publisher.subscribe(id: "s1", filter: .all, sink: sink, replaying: false)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<300 {
                group.addTask {
                    _ = try await bridge.ingest(
                        RawRead(
                            device: "mock:barcode-1", driver: "mock", kind: .barcode,
                            text: "item \(index)"))
                }
            }
            try await group.waitForAll()
        }
        #expect(log.seqs == Array(1...300))
        #expect(publisher.lastSeq == 300)
    }
}

/// A sink that records the seqs offered to it.
final class SeqSink: SubscriptionSink, Sendable {
    let log: CommitLog
    init(log: CommitLog) { self.log = log }
    func offer(_ event: JournaledEvent, for subscription: Subscription) -> Bool {
        log.add([event])
        return true
    }
    func waitForRoom(for subscription: Subscription) async throws {}
    func notify(_ notice: SubscriptionNotice, for subscription: Subscription) -> Bool { true }
    func overflowed(_ subscription: Subscription, dropped: Int) {}
}
