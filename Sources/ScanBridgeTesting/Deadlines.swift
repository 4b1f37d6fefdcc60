import Glibc
import Synchronization

// Every wait in the tests has a deadline, and names what it waited for when the deadline
// passes: a test that cannot go on fails with that name instead of hanging the run.
// `waitUntil` and `waitFor` poll (the one place in the tests that polls with a sleep);
// `within` puts a deadline on one await that cannot be polled (a stream's next element, a
// task's value). `blockUntil` is `waitUntil` for a thread of its own (a virtual card's).
// The default deadline is generous: tests run side by side on two cores, the camera's
// decode tests keep both cooperative threads busy for seconds at a time, and a deadline is
// there to end a test that cannot go on, never to measure one that is slow. Each deadline is
// stretched by SCANBRIDGE_TEST_TIME_SCALE (TestEnvironment) on a slower machine.

/// A wait whose deadline passed: what was awaited, and for how long.
package struct TimedOut: Error, CustomStringConvertible {
    package let what: String
    package let timeout: Duration

    package init(_ what: String, after timeout: Duration) {
        self.what = what
        self.timeout = timeout
    }

    package var description: String { "timed out after \(timeout) waiting for \(what)" }
}

/// Polls `condition` until it holds; throws `TimedOut` naming `what` when `timeout` passes
/// first. `what` is read only then, so it can show the state at the deadline (a log, the
/// devices listed). The condition may throw to give up early (a child process exited).
package func waitUntil(
    _ what: @autoclosure () -> String, timeout: Duration = .seconds(30),
    isolation: isolated (any Actor)? = #isolation, _ condition: () async throws -> Bool
) async throws {
    try await waitFor(what(), timeout: timeout) { try await condition() ? () : nil }
}

/// Polls `produce` until it gives a value and returns it; throws `TimedOut` naming `what`
/// when `timeout` passes first (see `waitUntil`).
package func waitFor<T>(
    _ what: @autoclosure () -> String, timeout: Duration = .seconds(30),
    isolation: isolated (any Actor)? = #isolation, _ produce: () async throws -> T?
) async throws -> T {
    let timeout = TestEnvironment.scaled(timeout)
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    // 1 ms at first, for what comes at once; then less often, for what takes seconds.
    var pause = Duration.milliseconds(1)
    while true {
        if let value = try await produce() { return value }
        let now = clock.now
        guard now < deadline else { throw TimedOut(what(), after: timeout) }
        try await Task.sleep(for: min(pause, deadline - now))
        pause = min(pause * 2, .milliseconds(50))
    }
}

/// `waitUntil` for code on a thread of its own (a virtual card serving vpcd, a tool run to
/// completion): blocks the thread, polling, never a task's.
package func blockUntil(
    _ what: @autoclosure () -> String, timeout: Duration = .seconds(30), _ condition: () throws -> Bool
) throws {
    let timeout = TestEnvironment.scaled(timeout)
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    var pause = Duration.milliseconds(1)
    while try !condition() {
        let now = clock.now
        guard now < deadline else { throw TimedOut(what(), after: timeout) }
        let nap = min(pause, deadline - now)
        usleep(useconds_t(nap.components.seconds * 1_000_000 + nap.components.attoseconds / 1_000_000_000_000))
        pause = min(pause * 2, .milliseconds(50))
    }
}

/// Runs `body` and returns what it returns; throws `TimedOut` naming `what` when it has not
/// finished within `timeout`. At the deadline (or when the caller is cancelled) `body` is
/// cancelled and given a moment to end, so that it no longer touches what it shares with the
/// caller; one that ignores cancellation is left behind rather than waited for.
package func within<T: Sendable>(
    _ what: String, timeout: Duration = .seconds(20), _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let timeout = TestEnvironment.scaled(timeout)
    let outcome = FirstOf<Result<T, any Error>>()
    let ended = FirstOf<Void>()
    let work = Task {
        do { outcome.give(.success(try await body())) } catch { outcome.give(.failure(error)) }
        ended.give(())
    }
    let timer = Task {
        guard (try? await Task.sleep(for: timeout)) != nil else { return }
        outcome.give(.failure(TimedOut(what, after: timeout)))
    }
    let result = await withTaskCancellationHandler {
        await outcome.value()
    } onCancel: {
        outcome.give(.failure(CancellationError()))
    }
    timer.cancel()
    work.cancel()
    let grace = Task {
        guard (try? await Task.sleep(for: .seconds(2))) != nil else { return }
        ended.give(())
    }
    await ended.value()
    grace.cancel()
    return try result.get()
}

/// A value given once, by whichever task gets there first, and awaited by one task.
private final class FirstOf<Value: Sendable>: Sendable {
    private enum State {
        case empty
        case awaited(CheckedContinuation<Value, Never>)
        case given(Value)
        case taken
    }

    private let state = Mutex(State.empty)

    func give(_ value: Value) {
        let waiting: CheckedContinuation<Value, Never>? = state.withLock { state in
            switch state {
            case .empty:
                state = .given(value)
                return nil
            case .awaited(let continuation):
                state = .taken
                return continuation
            case .given, .taken:
                return nil
            }
        }
        waiting?.resume(returning: value)
    }

    func value() async -> Value {
        await withCheckedContinuation { continuation in
            let given: Value? = state.withLock { state in
                switch state {
                case .given(let value):
                    state = .taken
                    return value
                case .empty:
                    state = .awaited(continuation)
                    return nil
                case .awaited, .taken:
                    preconditionFailure("FirstOf is awaited once")
                }
            }
            if let given { continuation.resume(returning: given) }
        }
    }
}
