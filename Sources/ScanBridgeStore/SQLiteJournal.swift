import Dispatch
import Foundation
import GRDB
import Logging
import ScanBridgeCore
import Synchronization

/// The event journal on SQLite, with group commit: appends that arrive while a transaction
/// is being written wait and go together into the next one, so throughput is not one
/// transaction per event. `seq` is assigned inside the transaction that stores the event,
/// so a failed commit never burns a number: the sequence stays gap-free.
///
/// One dedicated writer thread does the blocking SQLite writes (never the cooperative
/// pool), and hands each committed batch to the publisher in order.
public final class SQLiteJournal: Journal {
    private typealias Waiter = (event: ScanEvent, continuation: CheckedContinuation<JournaledEvent, any Error>)

    private struct State {
        var pending: [Waiter] = []
        /// The writer is waiting for work and needs a signal.
        var writerIdle = false
        var lastSeq: UInt64
        var prunedAt: UInt64
    }

    private let database: StoreDatabase
    private let retention: JournalRetention
    private let onCommit: @Sendable ([JournaledEvent]) -> Void
    private let logger: Logger
    private let state: Mutex<State>
    private let wakeWriter = DispatchSemaphore(value: 0)
    /// Bounds one transaction, so a burst does not hold every waiter behind one huge commit.
    private let maxBatch = 1024
    private let pruneEvery: UInt64 = 1024

    /// - Parameter onCommit: receives each committed batch in `seq` order (the publisher).
    public init(
        database: StoreDatabase, retention: JournalRetention = JournalRetention(), logger: Logger,
        onCommit: @escaping @Sendable ([JournaledEvent]) -> Void
    ) throws {
        self.database = database
        self.retention = retention
        self.logger = logger
        self.onCommit = onCommit
        let lastSeq = try database.pool.read { db in
            try UInt64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'event'") ?? 0
        }
        self.state = Mutex(State(lastSeq: lastSeq, prunedAt: lastSeq))
        try prune()
        let wake = wakeWriter
        // The thread holds the journal only while it works, so a dropped journal ends it.
        let writer = Thread { [weak self] in
            while let idle = self?.drainThenCheckIdle() {
                if idle { wake.wait() }
            }
        }
        writer.name = "scanbridge-journal"
        writer.start()
    }

    deinit {
        // Wakes the writer thread, which then finds the journal gone and ends.
        wakeWriter.signal()
    }

    public var latestSeq: UInt64 { state.withLock { $0.lastSeq } }

    public func append(_ event: ScanEvent) async throws -> JournaledEvent {
        try await withCheckedThrowingContinuation { continuation in
            let wake = state.withLock { state in
                state.pending.append((event, continuation))
                defer { state.writerIdle = false }
                return state.writerIdle
            }
            if wake { wakeWriter.signal() }
        }
    }

    /// Writes what is pending; true when the writer should then wait for a signal.
    private func drainThenCheckIdle() -> Bool {
        drain()
        return state.withLock { state in
            state.writerIdle = state.pending.isEmpty
            return state.writerIdle
        }
    }

    /// Writes what is pending, in batches, until nothing is. Runs on the writer thread.
    private func drain() {
        while true {
            let (batch, firstSeq) = state.withLock { state -> ([Waiter], UInt64) in
                let batch = Array(state.pending.prefix(maxBatch))
                state.pending.removeFirst(batch.count)
                return (batch, state.lastSeq + 1)
            }
            guard !batch.isEmpty else { return }
            do {
                let stored = try database.pool.write { db in
                    try Self.insert(batch.map(\.event), firstSeq: firstSeq, db: db)
                }
                let due = state.withLock { state -> Bool in
                    state.lastSeq = stored.last!.seq
                    return state.lastSeq - state.prunedAt >= pruneEvery
                }
                onCommit(stored)
                for (waiter, event) in zip(batch, stored) { waiter.continuation.resume(returning: event) }
                if due { try? prune() }
            } catch {
                logger.error("journal write failed", metadata: ["error": "\(error)", "events": "\(batch.count)"])
                let failure = ScanBridgeError.unavailable(
                    "the event journal could not be written (\(error)); check the database file and free disk space")
                for waiter in batch { waiter.continuation.resume(throwing: failure) }
            }
        }
    }

    private static func insert(_ events: [ScanEvent], firstSeq: UInt64, db: Database) throws -> [JournaledEvent] {
        let statement = try db.cachedStatement(
            sql: "INSERT INTO event (seq, id, timeMs, device, kind, json) VALUES (?, ?, ?, ?, ?, ?)")
        var stored: [JournaledEvent] = []
        stored.reserveCapacity(events.count)
        var seq = firstSeq
        for var event in events {
            event.seq = seq
            let json = event.json()
            let timeMs = Int64((event.time.timeIntervalSince1970 * 1000).rounded())
            try statement.execute(arguments: [Int64(seq), event.id, timeMs, event.device, event.kind.rawValue, Data(json)])
            stored.append(JournaledEvent(seq: seq, kind: event.kind, device: event.device, json: json))
            seq += 1
        }
        return stored
    }

    /// Drops what retention no longer keeps. The last seq stays in sqlite_sequence.
    private func prune() throws {
        let lastSeq = state.withLock { state in
            state.prunedAt = state.lastSeq
            return state.lastSeq
        }
        let cutoffMs = Int64((Date().timeIntervalSince1970 - Double(retention.maxAge.components.seconds)) * 1000)
        let keepFrom = Int64(lastSeq) - Int64(retention.maxEvents)
        try database.pool.write { db in
            try db.execute(sql: "DELETE FROM event WHERE seq <= ? OR timeMs < ?", arguments: [keepFrom, cutoffMs])
        }
    }

    public func events(after: UInt64, through: UInt64, filter: SubscriptionFilter, limit: Int) async throws
        -> [JournaledEvent]
    {
        try await database.pool.read { db in
            var sql = "SELECT seq, kind, device, json FROM event WHERE seq > ? AND seq <= ?"
            var arguments: StatementArguments = [Int64(after), Int64(through)]
            if let kinds = filter.kinds {
                sql += " AND kind IN (\(databaseQuestionMarks(count: kinds.count)))"
                arguments += StatementArguments(kinds.map(\.rawValue))
            }
            if let devices = filter.devices {
                sql += " AND device IN (\(databaseQuestionMarks(count: devices.count)))"
                arguments += StatementArguments(Array(devices))
            }
            sql += " ORDER BY seq LIMIT ?"
            arguments += [limit]
            return try Self.fetch(db, sql: sql, arguments: arguments)
        }
    }

    public func recent(limit: Int, kinds: Set<DeviceKind>?) async throws -> [JournaledEvent] {
        try await database.pool.read { db in
            var sql = "SELECT seq, kind, device, json FROM event"
            var arguments = StatementArguments()
            if let kinds {
                sql += " WHERE kind IN (\(databaseQuestionMarks(count: kinds.count)))"
                arguments += StatementArguments(kinds.map(\.rawValue))
            }
            sql += " ORDER BY seq DESC LIMIT ?"
            arguments += [limit]
            return try Self.fetch(db, sql: sql, arguments: arguments).reversed()
        }
    }

    public func oldestRetainedSeq() async throws -> UInt64? {
        try await database.pool.read { db in
            try UInt64.fetchOne(db, sql: "SELECT MIN(seq) FROM event")
        }
    }

    private static func fetch(_ db: Database, sql: String, arguments: StatementArguments) throws -> [JournaledEvent] {
        try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
            let json: Data = row["json"]
            return JournaledEvent(
                seq: row["seq"], kind: DeviceKind(rawValue: row["kind"]) ?? .barcode, device: row["device"],
                json: Array(json))
        }
    }
}
