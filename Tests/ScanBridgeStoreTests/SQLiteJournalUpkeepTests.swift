import GRDB
import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeStore
import Testing

/// A journal that cannot be written says why, in words a device's error can show, and the
/// upkeep that fails (prunes, checkpoints) is counted for `bridge.hello`, not ignored.
@Suite("SQLiteJournal upkeep")
struct SQLiteJournalUpkeepTests {
    @Test("a full database fails the append as 'disk full', burns no seq, and writing goes on once there is room")
    func diskFull() async throws {
        let file = try TemporaryDatabase()
        let database = try StoreDatabase(path: file.path)
        let log = CommitLog()
        let journal = try SQLiteJournal(database: database, logger: quietLogger) { log.add($0) }
        _ = try await journal.append(event(1))
        // The writer's connection may grow the file no more: SQLite answers SQLITE_FULL, as on a full disk.
        try await database.pool.writeWithoutTransaction { db in
            let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            try db.execute(sql: "PRAGMA max_page_count = \(pages)")
        }
        var failure: JournalWriteFailure?
        for index in 2..<2000 {
            do {
                _ = try await journal.append(event(index))
            } catch let error as JournalWriteFailure {
                failure = error
                break
            }
        }
        let full = try #require(failure, "an append past max_page_count fails")
        #expect(full.reason == "disk full")
        #expect(full.error.code == .unavailable)
        let committed = journal.latestSeq
        #expect(log.seqs == Array(1...committed), "what committed before has gap-free seqs")
        try await database.pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA max_page_count = 1000000") }
        #expect(try await journal.append(event(9999)).seq == committed + 1, "no seq burnt by the failures")
    }

    @Test("a prune that fails is logged and counted, and the events still commit")
    func pruneFailuresAreCounted() async throws {
        let file = try TemporaryDatabase()
        let database = try StoreDatabase(path: file.path)
        let journal = try SQLiteJournal(
            database: database, retention: JournalRetention(maxEvents: 2), logger: quietLogger, onCommit: { _ in })
        #expect(await journal.health().pruneFailures == 0)
        try await database.pool.write { db in
            try db.execute(
                sql: "CREATE TRIGGER refuse_prune BEFORE DELETE ON event BEGIN SELECT RAISE(ABORT, 'no prune'); END")
        }
        for index in 1...6 { _ = try await journal.append(event(index)) }
        let health = await journal.health()
        #expect(health.pruneFailures > 0)
        #expect(health.checkpointFailures == 0)
        #expect(health.walBytes > 0, "the write-ahead log holds the commits")
        #expect(journal.latestSeq == 6)
    }
}
