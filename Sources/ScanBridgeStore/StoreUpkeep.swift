import CoreMetrics
import Foundation
import GRDB
import Logging
import ScanBridgeCore
import Synchronization

/// The store's upkeep that failed (the journal's prunes, the log's checkpoints), logged and
/// counted since the database was opened. A failure stops no scan, but one that keeps coming
/// needs a person: a log that cannot be checkpointed only grows, and a journal that cannot be
/// pruned keeps what retention should drop. `bridge.hello` and `scanbridge doctor` report them.
final class StoreUpkeep: Sendable {
    private let counts = Mutex((prunes: 0, checkpoints: 0))
    private let logger: Logger
    /// The write-ahead log's file.
    let walPath: String
    /// The log's size as last sampled: at open, after each checkpoint and each prune (on the
    /// writer's and the checkpointer's queues), and whenever the journal's health is read.
    private let walGauge: Meter

    init(databasePath: String, logger: Logger, metrics: any MetricsFactory) {
        self.walPath = databasePath + "-wal"
        self.logger = logger
        self.walGauge = Meter(label: MetricSeries.walBytes.name, factory: metrics)
    }

    var pruneFailures: Int { counts.withLock { $0.prunes } }
    var checkpointFailures: Int { counts.withLock { $0.checkpoints } }

    /// A passive checkpoint on `db`; a failure is logged and counted, and the caller goes on.
    func checkpoint(_ db: Database, by whom: String) {
        defer { sampleWAL() }
        do {
            _ = try db.checkpoint(.passive)
        } catch {
            let failures = counts.withLock { counts in
                counts.checkpoints += 1
                return counts.checkpoints
            }
            logger.error(
                "journal checkpoint failed; the write-ahead log grows until one succeeds",
                metadata: ["checkpoint.by": "\(whom)", "error": "\(error)", "checkpoint.failures": "\(failures)"])
        }
    }

    /// A prune that threw: logged and counted; the next one tries again.
    func pruneFailed(_ error: any Error) {
        let failures = counts.withLock { counts in
            counts.prunes += 1
            return counts.prunes
        }
        logger.error(
            "journal prune failed; retention is applied again with the next events",
            metadata: ["error": "\(error)", "prune.failures": "\(failures)"])
    }

    /// Bytes of the write-ahead log file, 0 when there is none. A file-system call: never on
    /// the cooperative pool or an event loop.
    func walBytes() -> Int64 {
        var info = stat()
        let bytes = stat(walPath, &info) == 0 ? Int64(info.st_size) : 0
        walGauge.set(bytes)
        return bytes
    }

    /// Sets the log's gauge. A file-system call, like `walBytes()`.
    func sampleWAL() {
        _ = walBytes()
    }
}
