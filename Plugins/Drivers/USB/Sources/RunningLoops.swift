import Dispatch
import Synchronization

/// The read loops of a driver that have not ended yet, so that the daemon can wait for them
/// to give back their interfaces before it exits: a thread's cleanup would otherwise be cut
/// off, and a kernel driver taken with `detach=on` never given back.
final class RunningLoops: Sendable {
    private struct State {
        var count = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// A loop was made; it calls `ended()` when its thread is done.
    func began() {
        state.withLock { $0.count += 1 }
    }

    func ended() {
        let waiters = state.withLock { state in
            state.count -= 1
            guard state.count == 0 else { return [CheckedContinuation<Void, Never>]() }
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns when no loop runs, or after `limit` (a loop stuck in the kernel is left behind).
    func waitForAll(limit: Duration = .seconds(5)) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waiting = state.withLock { state in
                guard state.count > 0 else { return false }
                state.waiters.append(continuation)
                return true
            }
            guard waiting else { return continuation.resume() }
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(Int(limit / .milliseconds(1)))) { [self] in
                let late = state.withLock { state in
                    defer { state.waiters = [] }
                    return state.waiters
                }
                for waiter in late { waiter.resume() }
            }
        }
    }
}
