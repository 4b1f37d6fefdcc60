import DequeModule
import Synchronization

/// Lets `turns` tasks at a time run a piece of work, the others waiting in line: a
/// connection's large answers are built one after the other, so many requests for them at
/// once hold the memory of one answer, not of all; and replays read the journal a few at a
/// time, so that many of them cannot take every database reader from the scans.
package final class TurnTaking: Sendable {
    private struct State {
        var free: Int
        var waiting: Deque<CheckedContinuation<Void, Never>> = []
    }

    private let state: Mutex<State>

    package init(turns: Int = 1) {
        state = Mutex(State(free: turns))
    }

    package func run<T: Sendable>(_ work: () async throws -> T) async throws -> T {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                guard state.free > 0 else {
                    state.waiting.append(continuation)
                    return false
                }
                state.free -= 1
                return true
            }
            if now { continuation.resume() }
        }
        defer {
            // The turn passes to the first in line, or is free again.
            let next = state.withLock { state in
                guard let next = state.waiting.popFirst() else {
                    state.free += 1
                    return nil as CheckedContinuation<Void, Never>?
                }
                return next
            }
            next?.resume()
        }
        return try await work()
    }
}
