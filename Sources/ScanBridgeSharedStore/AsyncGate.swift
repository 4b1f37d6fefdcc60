import Synchronization

/// One task at a time through, the others waiting their turn in order, without blocking a
/// thread: the copy of a batch and a customer's erasure in `scan_events` take turns, so no
/// batch read from the journal before an erasure lands after it.
final class AsyncGate: Sendable {
    private struct State {
        var held = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    func through<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        await enter()
        defer { leave() }
        return try await body()
    }

    private func enter() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let entered = state.withLock { state in
                guard state.held else {
                    state.held = true
                    return true
                }
                state.waiting.append(continuation)
                return false
            }
            if entered { continuation.resume() }
        }
    }

    private func leave() {
        let next = state.withLock { state in
            guard !state.waiting.isEmpty else {
                state.held = false
                return CheckedContinuation<Void, Never>?.none
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
