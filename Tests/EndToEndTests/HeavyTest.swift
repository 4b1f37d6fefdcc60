import Foundation
import Synchronization
import Testing

/// A slot among the few tests that run at once while they start daemons, databases, browsers
/// or decoders (`@Suite(.heavy)`). Swift Testing starts every test at once: on two cores a
/// hundred daemons starting together stretch a test of milliseconds past the deadlines the
/// tests and the daemons keep. A test waits for a slot before its body runs, so the deadlines
/// it keeps start once it holds one; its reported time and its time limit include the wait
/// (Swift Testing runs scoping traits inside the limit), which the whole end-to-end phase's
/// few minutes bound well under the suites' limits. `SCANBRIDGE_TEST_SLOTS` sets how many
/// (default: twice the cores, at least 4).
struct HeavyTest: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    /// Around each test case, never around a suite: a suite holding a slot while its tests
    /// wait for one would never end.
    func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        test.isSuite || testCase == nil ? nil : self
    }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        await Self.slots.take()
        defer { Self.slots.give() }
        try await function()
    }

    static let slots = Slots(
        count: ProcessInfo.processInfo.environment["SCANBRIDGE_TEST_SLOTS"].flatMap(Int.init).map { max(1, $0) }
            ?? max(4, 2 * ProcessInfo.processInfo.activeProcessorCount))

    /// A counting semaphore for tasks: `take` waits without holding a thread.
    final class Slots: Sendable {
        private struct State {
            var free: Int
            var waiting: [CheckedContinuation<Void, Never>] = []
        }
        private let state: Mutex<State>

        init(count: Int) { state = Mutex(State(free: count)) }

        func take() async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let granted = state.withLock { state in
                    guard state.free > 0 else {
                        state.waiting.append(continuation)
                        return false
                    }
                    state.free -= 1
                    return true
                }
                if granted { continuation.resume() }
            }
        }

        func give() {
            let next = state.withLock { state in
                guard !state.waiting.isEmpty else {
                    state.free += 1
                    return nil as CheckedContinuation<Void, Never>?
                }
                return state.waiting.removeFirst()
            }
            next?.resume()
        }
    }
}

extension Trait where Self == HeavyTest {
    /// The test takes one of the few slots of tests that start daemons, databases or browsers.
    static var heavy: Self { HeavyTest() }
}
