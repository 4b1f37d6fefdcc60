import Foundation
import Synchronization
import Testing

@testable import CardLink

/// One-shot arms, with a manual clock.
@Suite struct CardArmsTests {
    final class ManualClock: Sendable {
        private let time = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        var now: Date { time.withLock { $0 } }
        func advance(_ seconds: Double) { time.withLock { $0 = $0.addingTimeInterval(seconds) } }
    }

    @Test func aDeviceArmGoesFirstAndEachArmIsUsedOnce() {
        let clock = ManualClock()
        let arms = CardArms(now: { clock.now })
        _ = arms.arm(walletAddress: "rAny", cardName: nil, device: nil, timeout: .seconds(30))
        let (_, expiresAt) = arms.arm(walletAddress: "rTill", cardName: "Blue", device: "mock:till", timeout: .seconds(30))
        #expect(expiresAt == clock.now.addingTimeInterval(30))
        #expect(arms.take(forDevice: "mock:till")?.walletAddress == "rTill")
        #expect(arms.take(forDevice: "mock:till")?.walletAddress == "rAny")
        #expect(arms.take(forDevice: "mock:till") == nil)
    }

    @Test func expiredAndDisarmedArmsAreGone() {
        let clock = ManualClock()
        let arms = CardArms(now: { clock.now })
        let (token, _) = arms.arm(walletAddress: "r1", cardName: nil, device: nil, timeout: .milliseconds(500))
        clock.advance(0.6)
        #expect(!arms.disarm(token))
        #expect(arms.take(forDevice: "x") == nil)
        let (second, _) = arms.arm(walletAddress: "r2", cardName: nil, device: "door", timeout: .seconds(5))
        #expect(arms.take(forDevice: "till") == nil, "an arm for another device stays")
        #expect(arms.disarm(second))
        #expect(!arms.disarm(second))
    }
}
