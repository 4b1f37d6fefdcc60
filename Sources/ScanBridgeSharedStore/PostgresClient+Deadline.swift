import PostgresNIO
import Synchronization

/// A store operation that took longer than the daemon waits for one.
struct StoreTimeout: Error, CustomStringConvertible {
    let what: String
    let limit: Duration
    var description: String { "the shop's store did not answer \(what) within \(limit)" }
}

extension PostgresClient {
    /// Runs `body` on one of the pool's connections, failed after `limit` whatever it waits
    /// for. The pool waits for a connection for as long as its server is away, and that wait
    /// ends when cancelled; but a query already sent is not cancelled with its task: it waits
    /// for an answer that a server gone silent (power cut, a dropped route) never sends. So
    /// at the deadline the connection is closed, which fails the query at once.
    @discardableResult
    func withConnection<T: Sendable>(
        _ what: String, within limit: Duration, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let leased = LeasedConnection()
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                try await self.withConnection { connection in
                    leased.connection.withLock { $0 = connection }
                    defer { leased.connection.withLock { $0 = nil } }
                    return try await body(connection)
                }
            }
            group.addTask {
                // Woken by the deadline, or early by a cancellation (the daemon stopping, a
                // client gone): either way a connection still held is closed, since its
                // query would not end otherwise. One the body has finished with is not held.
                let expired = (try? await Task.sleep(for: limit)) != nil
                if let connection = leased.connection.withLock({ $0 }) { try? await connection.close() }
                if !expired { throw CancellationError() }
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else { throw StoreTimeout(what: what, limit: limit) }
            return value
        }
    }
}

/// The connection an operation holds, for its deadline to close.
private final class LeasedConnection: Sendable {
    let connection = Mutex<PostgresConnection?>(nil)
}
