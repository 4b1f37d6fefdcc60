import Foundation
import GRDB
// SQLite's own API for the insert (see ProductRecord.swift for why it is imported this way).
import GRDBSQLite
package import Logging
package import ScanBridgeCore
package import ScanBridgeModel
import Synchronization

/// The event journal on SQLite, with group commit: appends that arrive while a transaction
/// is being written wait and go together into the next one, so throughput is not one
/// transaction per event. `seq` is assigned inside the transaction that stores the event,
/// so a failed commit never burns a number: the sequence stays gap-free.
///
/// The blocking SQLite writes run on GRDB's own serial writer queue (never the cooperative
/// pool): the first append that finds the journal idle schedules a drain there, which
/// writes batch after batch until nothing is pending, handing each committed batch to the
/// publisher in order. One hop from the request to the disk, none back to publish.
package final class SQLiteJournal: Journal {
    /// An event waiting for its commit: its columns, and its JSON but for its `seq`.
    private struct Row {
        let id: String
        let timeMs: Int64
        let device: String
        let kind: DeviceKind
        let body: [UInt8]

        /// Encoded here, on the caller's thread: the single writer only adds the seq.
        init(_ event: ScanEvent) {
            id = event.id
            timeMs = Int64((event.time.timeIntervalSince1970 * 1000).rounded())
            device = event.device
            kind = event.kind
            body = event.jsonBody()
        }
    }

    /// Events appended together, and who waits for their commit: they share a transaction.
    private struct Waiter {
        let rows: [Row]
        let continuation: CheckedContinuation<[JournaledEvent], any Error>
    }

    private struct State {
        var pending: [Waiter] = []
        var pendingRows = 0
        /// A drain is scheduled or running on the writer queue.
        var draining = false
        var lastSeq: UInt64
        var prunedAt: UInt64
        /// Events after this are kept whatever the retention (`hold(after:)`).
        var heldAfter: UInt64?
        var prunedTime = ContinuousClock.now
        var checkpointedAt: UInt64 = 0
        var writerCheckpointedAt: UInt64 = 0
    }

    let database: StoreDatabase
    private let retention: JournalRetention
    private let onCommit: @Sendable ([JournaledEvent]) -> Void
    private let logger: Logger
    private let state: Mutex<State>
    /// Bounds one transaction, so a burst does not hold every waiter behind one huge commit.
    private let maxBatch = 1024
    /// Under a burst, a commit taken the moment the last one ends finds only the few events
    /// that came in meanwhile, and every per-commit cost (transaction, WAL pages, publish,
    /// socket writes) is paid again for them. After a batch this large, when fewer than half
    /// as many are pending, the writer waits `linger` once for the rest of the burst. A lone
    /// scan (the last batch small) never waits.
    private let lingerAfter = 32
    private let linger: UInt32 = 50  // microseconds
    /// Events between prunes: often enough that retention holds within a tenth of its size.
    private let pruneEvery: UInt64
    /// Age-based retention is applied at least this often while events come in.
    private let pruneInterval: Duration = .seconds(60)
    /// 8 to 16 MB of log between background checkpoints: a checkpoint's fsync of the
    /// database file delays the fsync of every commit made meanwhile (docs/architecture.md,
    /// Design decisions).
    private let checkpointEvery: UInt64 = 4096
    /// Under a sustained burst the background checkpoint never catches up with the writer and
    /// the log would only grow; the writer itself checkpoints this often, so the log restarts.
    private let writerCheckpointEvery: UInt64 = 16_384

    /// - Parameters:
    ///   - heldAfter: retention drops no event after it until `hold(after:)` says otherwise: 0
    ///     with a shop's store, whose copy's position is not known yet.
    ///   - onCommit: receives each committed batch in `seq` order (the publisher).
    package init(
        database: StoreDatabase, retention: JournalRetention = JournalRetention(), heldAfter: UInt64? = nil,
        logger: Logger, onCommit: @escaping @Sendable ([JournaledEvent]) -> Void
    ) throws {
        self.database = database
        self.retention = retention
        self.logger = logger
        self.onCommit = onCommit
        self.pruneEvery = UInt64(max(1, min(1024, retention.maxEvents / 10)))
        let lastSeq = try database.pool.read { db in try JournalRetention.lastSeq(db) }
        self.state = Mutex(State(lastSeq: lastSeq, prunedAt: lastSeq, heldAfter: heldAfter))
        try database.pool.writeWithoutTransaction { db in try self.prune(db) }
    }

    package var latestSeq: UInt64 { state.withLock { $0.lastSeq } }

    package func append(contentsOf events: [ScanEvent]) async throws -> [JournaledEvent] {
        guard !events.isEmpty else { return [] }
        let rows = events.map(Row.init)
        return try await withCheckedThrowingContinuation { continuation in
            let schedule = state.withLock { state in
                state.pending.append(Waiter(rows: rows, continuation: continuation))
                state.pendingRows += rows.count
                defer { state.draining = true }
                return !state.draining
            }
            if schedule {
                database.pool.asyncWriteWithoutTransaction { db in self.drain(db) }
            }
        }
    }

    /// Writes what is pending, one transaction per batch, until nothing is. On the writer queue.
    private func drain(_ db: Database) {
        var lastBatchSize = 0
        while true {
            if lastBatchSize >= lingerAfter, state.withLock({ $0.pendingRows }) < lastBatchSize / 2 {
                usleep(linger)  // on GRDB's writer queue, never the cooperative pool
            }
            let (batch, rows, firstSeq) = state.withLock { state -> ([Waiter], Int, UInt64) in
                // Whole waiters (their events commit together), up to maxBatch events unless one holds more.
                var taken = 0
                var rows = 0
                while taken < state.pending.count, taken == 0 || rows + state.pending[taken].rows.count <= maxBatch {
                    rows += state.pending[taken].rows.count
                    taken += 1
                }
                let batch = Array(state.pending.prefix(taken))
                state.pending.removeFirst(taken)
                state.pendingRows -= rows
                if batch.isEmpty { state.draining = false }
                return (batch, rows, state.lastSeq + 1)
            }
            guard !batch.isEmpty else { return }
            lastBatchSize = rows
            do {
                // A lone event is one statement, its own transaction in SQLite's autocommit
                // mode: no BEGIN and COMMIT statements to run around it.
                let insert = { try Self.insert(batch, rows: rows, firstSeq: firstSeq, db: db) }
                let started = ContinuousClock.now
                let stored = try rows == 1 ? insert() : Self.inTransaction(db, insert)
                database.commitTimer.record(ContinuousClock.now - started)
                let (pruneDue, checkpointDue, writerCheckpointDue) = state.withLock { state in
                    state.lastSeq = stored.last!.seq
                    let checkpointDue = state.lastSeq - state.checkpointedAt >= checkpointEvery
                    if checkpointDue { state.checkpointedAt = state.lastSeq }
                    let writerCheckpointDue = state.lastSeq - state.writerCheckpointedAt >= writerCheckpointEvery
                    if writerCheckpointDue { state.writerCheckpointedAt = state.lastSeq }
                    let pruneDue =
                        state.lastSeq - state.prunedAt >= pruneEvery
                        || ContinuousClock.now - state.prunedTime >= pruneInterval
                    return (pruneDue, checkpointDue, writerCheckpointDue)
                }
                // Deliver first: pruning and checkpoints never delay an event.
                onCommit(stored)
                var next = 0
                for waiter in batch {
                    waiter.continuation.resume(returning: Array(stored[next..<next + waiter.rows.count]))
                    next += waiter.rows.count
                }
                if pruneDue {
                    do { try prune(db) } catch { database.upkeep.pruneFailed(error) }
                    // As often as retention is applied: the log's growth shows between checkpoints.
                    database.upkeep.sampleWAL()
                }
                if writerCheckpointDue {
                    database.upkeep.checkpoint(db, by: "journal")
                } else if checkpointDue {
                    database.checkpointInBackground()
                }
            } catch {
                logger.error("journal write failed", metadata: ["error": "\(error)", "events": "\(rows)"])
                let failure = JournalWriteFailure(
                    reason: Self.reason(error),
                    error: .unavailable(
                        "the event journal could not be written (\(error)); check the database file and free disk space"))
                for waiter in batch { waiter.continuation.resume(throwing: failure) }
            }
        }
    }

    /// Inserts the batch's events, numbered from `firstSeq`, in order.
    private static func insert(_ batch: [Waiter], rows: Int, firstSeq: UInt64, db: Database) throws -> [JournaledEvent] {
        let statement = try db.cachedStatement(
            sql: "INSERT INTO event (seq, id, timeMs, device, kind, json) VALUES (?, ?, ?, ?, ?, ?)")
        var stored: [JournaledEvent] = []
        stored.reserveCapacity(rows)
        var seq = firstSeq
        for waiter in batch {
            for row in waiter.rows {
                let json = ScanEvent.json(seq: seq, body: row.body)
                try insert(row, seq: seq, json: json, into: statement)
                stored.append(JournaledEvent(seq: seq, kind: row.kind, device: row.device, json: json))
                seq += 1
            }
        }
        return stored
    }

    /// Binds and steps through SQLite's API: GRDB's arguments would box every value and copy
    /// the JSON into `Data` for every event. The bound text and blob are borrowed
    /// (`SQLITE_STATIC`), so the statement is reset before they go.
    private static func insert(_ row: Row, seq: UInt64, json: [UInt8], into statement: Statement) throws {
        let insert = statement.sqliteStatement
        var failure: String?
        let code = json.withUnsafeBytes { blob in
            row.id.withCString { id in
                row.device.withCString { device in
                    row.kind.rawValue.withCString { kind in
                        defer {
                            sqlite3_reset(insert)
                            sqlite3_clear_bindings(insert)
                        }
                        sqlite3_bind_int64(insert, 1, Int64(seq))
                        sqlite3_bind_text(insert, 2, id, -1, nil)
                        sqlite3_bind_int64(insert, 3, row.timeMs)
                        sqlite3_bind_text(insert, 4, device, -1, nil)
                        sqlite3_bind_text(insert, 5, kind, -1, nil)
                        sqlite3_bind_blob(insert, 6, blob.baseAddress, Int32(blob.count), nil)
                        let code = sqlite3_step(insert)
                        if code != SQLITE_DONE { failure = String(cString: sqlite3_errmsg(sqlite3_db_handle(insert))) }
                        return code
                    }
                }
            }
        }
        guard code == SQLITE_DONE else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: failure, sql: statement.sql)
        }
    }

    /// Drops what retention no longer keeps (on the writer queue, after delivery).
    private func prune(_ db: Database) throws {
        let (lastSeq, held) = state.withLock { state in
            state.prunedAt = state.lastSeq
            state.prunedTime = ContinuousClock.now
            return (state.lastSeq, state.heldAfter)
        }
        try Self.inTransaction(db) { try retention.prune(db, lastSeq: lastSeq, now: Date(), keepingAfter: held) }
    }

    package func hold(after seq: UInt64?) {
        state.withLock { $0.heldAfter = seq }
    }

    /// One write transaction through cached BEGIN and COMMIT statements: the journal commits
    /// for every batch, and GRDB's general transaction path does far more than these two
    /// statements (docs/architecture.md, Design decisions).
    static func inTransaction<T>(_ db: Database, _ body: () throws -> T) throws -> T {
        try db.cachedStatement(sql: "BEGIN IMMEDIATE").execute()
        do {
            let result = try body()
            try db.cachedStatement(sql: "COMMIT").execute()
            return result
        } catch {
            if db.isInsideTransaction { try? db.execute(sql: "ROLLBACK") }
            throw error
        }
    }
}
