package import CoreMetrics
import Foundation
package import GRDB
package import Logging
import ScanBridgeCore
import Synchronization

/// Rows bulk writes (an import, the shop's changes copied here) made since the last
/// checkpoint, shared by the copies of a `StoreDatabase`: a large import must not grow the
/// write-ahead log without bound, and checkpointing more often copies the same pages again
/// and again; the interval bounds the log at little cost in import time
/// (docs/architecture.md, Design decisions).
final class CheckpointBudget: Sendable {
    private let rows = Mutex(0)
    private static let everyRows = 131_072

    /// Counts `written` rows; true when they reach the interval (and the count starts again).
    func spend(_ written: Int) -> Bool {
        rows.withLock { rows in
            rows += written
            guard rows >= Self.everyRows else { return false }
            rows = 0
            return true
        }
    }
}

/// A Bool shared by the copies of a struct.
final class SharedFlag: Sendable {
    private let value = Mutex(false)
    func withLock<R>(_ body: (inout Bool) -> R) -> R { value.withLock { body(&$0) } }
}

/// The embedded SQLite database (WAL mode) and its schema. Journal and repositories
/// share one pool: one writer, concurrent readers.
package struct StoreDatabase: Sendable {
    /// How hard a commit waits for the disk.
    package enum Durability: String, Sendable, Codable {
        /// Survives a crash of the daemon (kill -9) without an fsync per commit.
        case normal
        /// Also survives a power cut: one fsync per group commit.
        case full
    }

    package let pool: DatabasePool
    package let path: String
    /// How hard a commit waits for the disk (`journal.durability`).
    let durability: Durability
    /// A connection of its own for WAL checkpoints, so their fsyncs never hold up a commit.
    private let checkpointer: DatabaseQueue
    private let checkpointWaiting = SharedFlag()
    private let unCheckpointedRows = CheckpointBudget()
    /// Read-only connections for the point reads of a scan, made on the caller's thread.
    let pointReads: PointReadConnections
    /// Failed prunes and checkpoints, logged and counted.
    let upkeep: StoreUpkeep
    /// Times each journal commit.
    let commitTimer: CoreMetrics.Timer

    /// Opens (creating when missing, with its folder) and migrates the database at `path`.
    /// - Parameter metrics: makes the store's metrics (the journal's commit time, the log's size).
    package init(
        path: String, durability: Durability = .normal, logger: Logger = Logger(label: "scanbridge.store"),
        metrics: any MetricsFactory = NOOPMetricsHandler.instance
    ) throws {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        configuration.prepareDatabase { db in
            try Self.setSynchronous(durability, db)
            // Checkpoints run on `checkpointer`, not in whichever commit crosses the threshold.
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
            // The journal appends at one end and replays sequentially: a small page cache per
            // connection serves it as well as the 2 MB default, which adds up on a small box.
            try db.execute(sql: "PRAGMA cache_size = -512")
        }
        self.path = path
        self.durability = durability
        self.pool = try DatabasePool(path: path, configuration: configuration)
        // Again on the writer, once the pool is open: opening it in WAL mode sets
        // `synchronous = NORMAL` after `prepareDatabase` ran, which would take the fsync out
        // of every commit of a `full` journal.
        try pool.writeWithoutTransaction { db in try Self.setSynchronous(durability, db) }
        do {
            try Self.migrator.migrate(pool)
        } catch var refused as MoneyMigrationRefused {
            refused.path = path
            throw refused
        }
        self.checkpointer = try DatabaseQueue(path: path, configuration: configuration)
        self.pointReads = PointReadConnections(path: path)
        self.upkeep = StoreUpkeep(databasePath: path, logger: logger, metrics: metrics)
        self.commitTimer = CoreMetrics.Timer(label: MetricSeries.journalCommit.name, factory: metrics)
        upkeep.sampleWAL()
    }

    static func setSynchronous(_ durability: Durability, _ db: Database) throws {
        try db.execute(sql: "PRAGMA synchronous = \(durability == .full ? "FULL" : "NORMAL")")
    }

    /// The writer's `PRAGMA synchronous`: 2 for FULL, 1 for NORMAL.
    package func writerSynchronous() throws -> Int {
        try pool.writeWithoutTransaction { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1 }
    }

    /// Whether a bulk write of `rows` rows should checkpoint as it commits (`write(_:checkpoint:_:)`);
    /// when not, the caller asks for `checkpointInBackground()` once it has.
    package func checkpointDue(afterWriting rows: Int) -> Bool {
        unCheckpointedRows.spend(rows)
    }

    /// Copies the write-ahead log into the database file in the background (passive: it
    /// waits for no reader or writer), keeping the log from growing without bound, and
    /// lookups reading from the database file rather than searching the log. Calls made
    /// while one is waiting to run share it.
    package func checkpointInBackground() {
        guard
            checkpointWaiting.withLock({ waiting in
                defer { waiting = true }
                return !waiting
            })
        else { return }
        checkpointer.asyncWriteWithoutTransaction { [checkpointWaiting, upkeep] db in
            // Cleared before it runs: a write committed meanwhile gets a checkpoint of its own.
            checkpointWaiting.withLock { $0 = false }
            upkeep.checkpoint(db, by: "background")
        }
    }

    /// Migrations are never edited once shipped: add a new one instead.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-journal") { db in
            // seq is the rowid: no AUTOINCREMENT bookkeeping on every commit. Pruning records
            // the last seq in journal_floor, so the sequence survives an emptied table.
            try db.execute(
                sql: """
                    CREATE TABLE event (
                        seq INTEGER PRIMARY KEY,
                        id TEXT NOT NULL,
                        timeMs INTEGER NOT NULL,
                        device TEXT NOT NULL,
                        kind TEXT NOT NULL CHECK (kind IN ('nfc', 'barcode', 'qr')),
                        json BLOB NOT NULL
                    );
                    CREATE INDEX event_kind_seq ON event(kind, seq);
                    CREATE TABLE journal_floor (
                        id INTEGER PRIMARY KEY CHECK (id = 1),
                        seq INTEGER NOT NULL
                    );
                    """)
        }
        registerDomainSchema(in: &migrator)
        registerScannerSchema(in: &migrator)
        migrator.registerMigration("v4-journal-without-kind-index") { db in
            // An index on (kind, seq) costs every append a second B-tree and a second WAL frame
            // in its commit. A filter by kind reads the events by seq instead: a replay reads its
            // range once either way, and `events.recent` of a kind rare in a full journal reads
            // it all, on a reader connection (docs/architecture.md, Design decisions).
            try db.execute(sql: "DROP INDEX IF EXISTS event_kind_seq")
        }
        registerTokenSchema(in: &migrator)
        registerProductStoreScope(in: &migrator)
        registerShopReplicaSchema(in: &migrator)
        registerMoneyMinorUnits(in: &migrator)
        registerCardSecuritySchema(in: &migrator)
        return migrator
    }
}
