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
    ///
    /// The caller is answered at the deadline without waiting for `body` to end: a query sent
    /// on a connection whose channel has already closed and dropped its handlers (the server
    /// went away between the lease and the query) is lost with no answer ever, and waiting
    /// for it would hang the caller for good.
    @discardableResult
    func withConnection<T: Sendable>(
        _ what: String, within limit: Duration, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let race = DeadlineRace<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard race.begin(continuation) else { return }
                race.add(
                    Task {
                        do {
                            let value = try await self.withConnection { connection in
                                guard race.hold(connection) else {
                                    try? await connection.close()
                                    throw CancellationError()
                                }
                                let outcome: Result<T, any Error>
                                do {
                                    outcome = .success(try await body(connection))
                                } catch {
                                    outcome = .failure(error)
                                }
                                // Closed by the race's end: the lease goes back only once the
                                // pool has seen the close, so it never lends the connection again.
                                if race.letGo() { try? await connection.close() }
                                return try outcome.get()
                            }
                            race.end(.success(value))
                        } catch {
                            race.end(.failure(error))
                        }
                    })
                race.add(
                    Task {
                        guard (try? await Task.sleep(for: limit)) != nil else { return }
                        race.end(.failure(StoreTimeout(what: what, limit: limit)))
                    })
            }
        } onCancel: {
            race.end(.failure(CancellationError()))
        }
    }
}

/// An operation racing its deadline and its caller's cancellation: the first to end it
/// answers the caller; then the other tasks are cancelled, and a connection the operation
/// still holds is closed, since its query would not end otherwise.
private final class DeadlineRace<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var result: Result<T, any Error>?
        var connection: PostgresConnection?
        var tasks: [Task<Void, Never>] = []
    }
    private let state = Mutex(State())

    /// Takes the caller's continuation; false when the race had already ended (the caller
    /// was cancelled first), in which case the continuation is resumed here.
    func begin(_ continuation: CheckedContinuation<T, any Error>) -> Bool {
        let ended = state.withLock { state in
            if state.result == nil { state.continuation = continuation }
            return state.result
        }
        guard let ended else { return true }
        continuation.resume(with: ended)
        return false
    }

    /// A task of the race, cancelled when it ends (at once if it has).
    func add(_ task: Task<Void, Never>) {
        let ended = state.withLock { state in
            if state.result == nil { state.tasks.append(task) }
            return state.result != nil
        }
        if ended { task.cancel() }
    }

    /// The connection the operation was lent; false when the race has already ended, and
    /// the operation must not start.
    func hold(_ connection: PostgresConnection) -> Bool {
        state.withLock { state in
            guard state.result == nil else { return false }
            state.connection = connection
            return true
        }
    }

    /// The operation is done with its connection; true when the race's end closed it.
    func letGo() -> Bool {
        state.withLock { state in
            state.connection = nil
            return state.result != nil
        }
    }

    /// Ends the race with `result`, unless it has already ended.
    func end(_ result: Result<T, any Error>) {
        let ending = state.withLock { state -> (CheckedContinuation<T, any Error>?, [Task<Void, Never>])? in
            guard state.result == nil else { return nil }
            state.result = result
            // Closed under the lock, so that the operation cannot have let the connection go
            // (and the pool lent it to another) before it is closed. Closing only starts here.
            if let connection = state.connection { _ = connection.close() as EventLoopFuture<Void> }
            defer { (state.continuation, state.tasks) = (nil, []) }
            return (state.continuation, state.tasks)
        }
        guard let (continuation, tasks) = ending else { return }
        continuation?.resume(with: result)
        for task in tasks { task.cancel() }
    }
}
