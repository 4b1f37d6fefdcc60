/// A store operation that took longer than the daemon waits for one.
struct StoreTimeout: Error, CustomStringConvertible {
    let what: String
    let limit: Duration
    var description: String { "the shop's store did not answer \(what) within \(limit)" }
}

/// Runs `body`, cancelled and failed after `limit`. postgres-nio's pool waits for a connection
/// for as long as its server is away; the copy must not wait with it, or it would never
/// notice that it is offline.
func withDeadline<T: Sendable>(
    _ what: String, _ limit: Duration, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else { throw StoreTimeout(what: what, limit: limit) }
        return value
    }
}
