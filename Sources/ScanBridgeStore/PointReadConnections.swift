import Foundation
import GRDB
import Synchronization

/// A few read-only connections of their own, for point reads made synchronously on the
/// caller's thread (the scan lookup).
///
/// A read through `DatabasePool` takes the pool's semaphore and barrier queue and checks the
/// schema version with one more statement on every access, overhead a point read on every
/// scan should not pay; `inDatabase` on a connection taken from this free list runs the cached
/// statement directly. In WAL mode a reader never waits for the writer. When every
/// connection is busy (more concurrent callers than `maximum`), the read goes to the pool
/// rather than wait.
final class PointReadConnections: Sendable {
    private struct State {
        var idle: [DatabaseQueue] = []
        var opened = 0
    }

    private let path: String
    private let maximum: Int
    private let state = Mutex(State())

    init(path: String, maximum: Int = 2 * max(2, ProcessInfo.processInfo.activeProcessorCount)) {
        self.path = path
        self.maximum = maximum
    }

    /// `body` on an idle connection of this set, else on a newly opened one while fewer than
    /// `maximum` are open; nil when all are in use.
    func read<T>(_ body: (Database) throws -> T) throws -> T? {
        guard let connection = try take() else { return nil }
        defer { state.withLock { $0.idle.append(connection) } }
        return try connection.inDatabase(body)
    }

    private func take() throws -> DatabaseQueue? {
        enum Next {
            case use(DatabaseQueue)
            case open, none
        }
        let next = state.withLock { state -> Next in
            if let connection = state.idle.popLast() { return .use(connection) }
            guard state.opened < maximum else { return .none }
            state.opened += 1
            return .open
        }
        switch next {
        case .use(let connection):
            return connection
        case .none:
            return nil
        case .open:
            do {
                return try open()
            } catch {
                state.withLock { $0.opened -= 1 }
                throw error
            }
        }
    }

    private func open() throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.readonly = true
        // A WAL reader is busy only while a crashed writer's log is recovered: wait briefly.
        configuration.busyMode = .timeout(1)
        configuration.label = "scanbridge.point-read"
        configuration.prepareDatabase { db in
            // The upper levels of the catalog's indexes stay in memory: a lookup then reads
            // only the two leaf pages it needs from the OS. No more: the products found lately
            // are answered from `ProductLookupCache` before any read, so leaf pages kept here
            // would hold memory in every connection for lookups that rarely come back.
            try db.execute(sql: "PRAGMA cache_size = -2048")
            // With pread, not a memory map: an I/O error on a mapped page (a failing disk, the
            // file cut short) is a SIGBUS that kills the daemon; through pread it is an error
            // the lookup reports. Say so even where SQLite's build maps by default.
            try db.execute(sql: "PRAGMA mmap_size = 0")
        }
        return try DatabaseQueue(path: path, configuration: configuration)
    }
}
