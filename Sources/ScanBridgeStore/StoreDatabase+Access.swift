import Foundation
import GRDB
import ScanBridgeCore
import ScanBridgeModel

/// Reads and writes of the repositories: on GRDB's own connection queues (never the
/// cooperative pool), with the database's failures turned into errors a person can act on.
extension StoreDatabase {
    /// A read on one of the pool's reader connections, in one snapshot.
    func read<T: Sendable>(_ action: String, _ body: @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await pool.read(body)
        } catch {
            throw storeError(error, action)
        }
    }

    /// A read of a few rows by index, made synchronously on the caller's thread: what a scan
    /// needs answered in microseconds (see `PointReadConnections`). In WAL mode it never
    /// waits for the writer. When every point-read connection is busy, a pool reader serves it.
    func pointRead<T>(_ action: String, _ body: (Database) throws -> T) throws -> T {
        do {
            if let value = try pointReads.read(body) { return value }
            return try pool.unsafeRead(body)
        } catch {
            throw storeError(error, action)
        }
    }

    /// A write transaction on the single writer connection: all of `body` or none of it.
    ///
    /// - Parameter checkpoint: then copy the write-ahead log into the database on the writer
    ///   itself. A background checkpoint never catches up with a writer that keeps writing
    ///   (a bulk import), and the log would only grow; one taken between two transactions
    ///   lets the next one start the log over.
    func write<T: Sendable>(
        _ action: String, checkpoint: Bool = false, _ body: @Sendable (Database) throws -> T
    ) async throws -> T {
        do {
            return try await pool.writeWithoutTransaction { db in
                var result: T?
                try db.inTransaction {
                    result = try body(db)
                    return .commit
                }
                if checkpoint { upkeep.checkpoint(db, by: "writer") }
                return result!
            }
        } catch {
            throw storeError(error, action)
        }
    }

    /// A write transaction whose commit waits for no fsync of its own: the journal's next
    /// commit, which does, makes it durable with it (the write-ahead log is one file, synced
    /// whole). For a write on a scan's path that matters only with the scan's event: a tap's
    /// read counter, written before its event is journaled, costs no second fsync a tap. A
    /// power cut before that commit loses both, so no accepted tap outlives its counter.
    func writeSyncedByNextCommit<T: Sendable>(_ action: String, _ body: @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await pool.writeWithoutTransaction { [durability] db in
                if durability == .full { try Self.setSynchronous(.normal, db) }
                let outcome = Result {
                    var result: T?
                    try db.inTransaction {
                        result = try body(db)
                        return .commit
                    }
                    return result!
                }
                // Back before any other write runs on the writer: the journal's commits sync.
                try Self.setSynchronous(durability, db)
                return try outcome.get()
            }
        } catch {
            throw storeError(error, action)
        }
    }

    /// `error` as `unavailable` when the database cannot serve now (read-only, disk full,
    /// I/O error, locked, damaged); any other error unchanged.
    ///
    /// - Parameter action: what was being done, e.g. "save the products".
    func storeError(_ error: any Error, _ action: String) -> any Error {
        guard let error = error as? DatabaseError else { return error }
        let state: String
        let remedy: String
        switch error.resultCode {
        case .SQLITE_READONLY:
            state = "is read-only"
            remedy = "check the permissions of the file and its folder, and that the disk is mounted read-write"
        case .SQLITE_FULL:
            state = "is on a full disk"
            remedy = "free some disk space"
        case .SQLITE_IOERR, .SQLITE_CANTOPEN:
            state = "could not be read or written"
            remedy = "check the disk and the file"
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            state = "is locked"
            remedy = "another process holds it; stop it or try again"
        case .SQLITE_CORRUPT, .SQLITE_NOTADB:
            state = "is damaged"
            remedy = "restore it from a backup"
        default:
            return error
        }
        let detail = error.message ?? "\(error.resultCode)"
        return ScanBridgeError.unavailable(
            "the database \(path) \(state), so ScanBridge could not \(action): \(detail); \(remedy)")
    }
}

/// Times are stored as integer milliseconds since 1970, as the journal's `timeMs`.
enum StoreTime {
    /// Rounded down, as `EventTime` prints times: a stored time reads back as it was shown.
    static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
    }

    /// `date` at the precision it is stored with.
    static func stored(_ date: Date) -> Date {
        self.date(milliseconds(date))
    }

    static func date(_ milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    static func date(_ milliseconds: Int64?) -> Date? {
        milliseconds.map(date)
    }
}
