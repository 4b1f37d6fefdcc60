import Synchronization
import Testing

@testable import ScanBridgeCore

/// `TurnTaking` lets its number of tasks run at once, the rest in line, each turn passed on.
@Suite
struct TurnTakingTests {
    final class Count: Sendable {
        let state = Mutex((running: 0, most: 0, done: 0))
    }

    @Test(arguments: [1, 2, 3])
    func atMostItsTurnsRunAtOnceAndEveryOneRuns(turns: Int) async throws {
        let taking = TurnTaking(turns: turns)
        let count = Count()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    try await taking.run {
                        count.state.withLock { state in
                            state.running += 1
                            state.most = max(state.most, state.running)
                        }
                        try await Task.sleep(for: .milliseconds(2))
                        count.state.withLock { state in
                            state.running -= 1
                            state.done += 1
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let seen = count.state.withLock { $0 }
        #expect(seen.done == 20)
        #expect(seen.most <= turns)
    }

    @Test func aTurnThatThrowsIsPassedOn() async throws {
        struct Failure: Error {}
        let taking = TurnTaking()
        await #expect(throws: Failure.self) { try await taking.run { throw Failure() } }
        #expect(try await taking.run { 7 } == 7)
    }
}
