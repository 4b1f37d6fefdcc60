import Logging
import PostgresNIO
import Synchronization

/// The pool of connections to the shop's store, made again while the store cannot be
/// reached. postgres-nio's pool waits longer and longer between its attempts to reconnect
/// (up to a minute, not configurable), so after a long outage it would find the store back
/// a minute late; a new pool tries at once. While the store is away, `renew` is called every
/// `store.retry_max_ms`, and the next attempt is a fresh pool's first (docs/architecture.md,
/// Design decisions).
package final class StorePool: Sendable {
    private let configuration: PostgresClient.Configuration
    private let logger: Logger
    private let current: Mutex<PostgresClient>
    private let renewals: AsyncStream<PostgresClient>.Continuation
    private let renewed: AsyncStream<PostgresClient>

    init(configuration: PostgresClient.Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        current = Mutex(PostgresClient(configuration: configuration, backgroundLogger: logger))
        (renewed, renewals) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// The pool now: each operation takes it anew, so that it runs on the latest.
    var client: PostgresClient { current.withLock { $0 } }

    /// `PostgresClient.withConnection(_:within:_:)` on the pool now.
    @discardableResult
    func withConnection<T: Sendable>(
        _ what: String, within limit: Duration, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await client.withConnection(what, within: limit, body)
    }

    /// A new pool takes the place of the current one, whose connections close and whose
    /// waiting operations fail (their callers try again, on the new one).
    func renew() {
        let fresh = PostgresClient(configuration: configuration, backgroundLogger: logger)
        current.withLock { $0 = fresh }
        renewals.yield(fresh)
    }

    /// Runs the current pool, then each that replaces it, until cancelled.
    func run() async {
        let running = Mutex<Task<Void, Never>?>(nil)
        let first = client
        running.withLock { $0 = Task { await first.run() } }
        await withTaskCancellationHandler {
            for await fresh in renewed {
                let previous = running.withLock { running in
                    defer { running = Task { await fresh.run() } }
                    return running
                }
                previous?.cancel()
            }
        } onCancel: {
            renewals.finish()
        }
        let last = running.withLock { $0 }
        last?.cancel()
        await last?.value
    }
}
