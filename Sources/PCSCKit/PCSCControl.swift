import Foundation
import Synchronization

/// What the async side shares with the monitor thread: whether to stop, and the context to
/// cancel so that a blocked `SCardGetStatusChange` returns at once.
package final class PCSCControl: Sendable {
    private struct State {
        var stopped = false
        var context: PCSCContext?
    }

    private let state = Mutex(State())
    /// Signalled on stop, so a backoff sleep ends early.
    private let wakeup = DispatchSemaphore(value: 0)

    package init() {}

    package var isStopped: Bool { state.withLock { $0.stopped } }

    /// Makes `context` the one `stop()` cancels; false when stopping already (the caller releases it).
    package func adopt(_ context: PCSCContext) -> Bool {
        state.withLock { state in
            guard !state.stopped else { return false }
            state.context = context
            return true
        }
    }

    package func forget() {
        state.withLock { $0.context = nil }
    }

    /// Called from any thread: the monitor thread returns from its blocking call and ends.
    package func stop() {
        let context = state.withLock { state in
            state.stopped = true
            return state.context
        }
        context?.cancel()
        wakeup.signal()
    }

    /// Sleeps up to `seconds`; false when stopped meanwhile.
    package func sleep(seconds: Double) -> Bool {
        if isStopped { return false }
        _ = wakeup.wait(timeout: .now() + seconds)
        return !isStopped
    }
}
