import Synchronization

/// One part of the daemon the watchdog watches: it has moved when the task it was last
/// asked to run has run, or when its progress counter has changed since (a writer that is
/// busy with a long burst has not run the task yet, but commits).
package final class WatchdogProbe: Sendable {
    package let name: String
    private let ask: @Sendable (_ done: @escaping @Sendable () -> Void) -> Void
    private let progress: (@Sendable () -> UInt64)?
    private let state = Mutex(State())

    private struct State {
        /// A task was handed over and has not run yet.
        var pending = false
        var lastProgress: UInt64 = 0
    }

    /// - Parameters:
    ///   - ask: hands the part a task that calls `done` when run (at most one at a time).
    ///   - progress: a counter the part advances as it works, if it has one.
    package init(
        _ name: String, progress: (@Sendable () -> UInt64)? = nil,
        ask: @escaping @Sendable (_ done: @escaping @Sendable () -> Void) -> Void
    ) {
        self.name = name
        self.ask = ask
        self.progress = progress
    }

    /// Whether the part moved since the last call; hands it the next task when it ran the last.
    package func moved() -> Bool {
        let current = progress?() ?? 0
        let (answered, advanced) = state.withLock { state in
            defer { state.lastProgress = current }
            let answered = !state.pending
            if answered { state.pending = true }
            return (answered, current != state.lastProgress)
        }
        if answered {
            ask { self.state.withLock { $0.pending = false } }
        }
        return answered || advanced
    }
}
