import Foundation
import ScanBridgeCore
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
        try await Self.slots.run { try await function() }
    }

    static let slots = TurnTaking(
        turns: ProcessInfo.processInfo.environment["SCANBRIDGE_TEST_SLOTS"].flatMap(Int.init).map { max(1, $0) }
            ?? max(4, 2 * ProcessInfo.processInfo.activeProcessorCount))
}

extension Trait where Self == HeavyTest {
    /// The test takes one of the few slots of tests that start daemons, databases or browsers.
    static var heavy: Self { HeavyTest() }
}
