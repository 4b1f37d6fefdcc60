import DequeModule
import Synchronization

/// Lets one task at a time run a piece of work, the others waiting in line: a connection's
/// large answers are built one after the other, so many requests for them at once hold the
/// memory of one answer, not of all.
final class TurnTaking: Sendable {
    private struct State {
        var busy = false
        var waiting: Deque<CheckedContinuation<Void, Never>> = []
    }

    private let state = Mutex(State())

    func run<T: Sendable>(_ work: () async throws -> T) async throws -> T {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                guard state.busy else {
                    state.busy = true
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
        defer {
            let next = state.withLock { state in
                guard let next = state.waiting.popFirst() else {
                    state.busy = false
                    return nil as CheckedContinuation<Void, Never>?
                }
                return next
            }
            next?.resume()
        }
        return try await work()
    }
}
