import Dispatch
import GRDB
package import ScanBridgeCore

extension SQLiteJournal {
    package func health() async -> JournalHealth {
        let upkeep = database.upkeep
        // Reading the log's size is a file-system call: off the cooperative pool.
        let walBytes = await withCheckedContinuation { done in
            DispatchQueue.global(qos: .utility).async { done.resume(returning: upkeep.walBytes()) }
        }
        return JournalHealth(
            walBytes: walBytes, pruneFailures: upkeep.pruneFailures, checkpointFailures: upkeep.checkpointFailures)
    }

    /// Runs `body` on the writer queue once the writes queued before it are done: the
    /// service watchdog's sign that the writer is not stuck.
    package func afterQueuedWrites(_ body: @escaping @Sendable () -> Void) {
        database.pool.asyncWriteWithoutTransaction { _ in body() }
    }

    /// Why a write failed, in the few words a device's error sentence gives it.
    static func reason(_ error: any Error) -> String {
        guard let error = error as? DatabaseError else { return "\(error)" }
        switch error.resultCode {
        case .SQLITE_FULL: return "disk full"
        case .SQLITE_BUSY, .SQLITE_LOCKED: return "the database is locked by another process"
        case .SQLITE_IOERR: return "I/O error"
        case .SQLITE_READONLY: return "the database is read-only"
        case .SQLITE_CANTOPEN: return "the database file cannot be opened"
        case .SQLITE_CORRUPT, .SQLITE_NOTADB: return "the database is damaged"
        default: return error.message ?? "\(error.resultCode)"
        }
    }
}
