import Foundation
import ScanBridgeModel
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

    @Test func aDeviceArmGoesFirstAndEachArmIsUsedOnce() throws {
        let clock = ManualClock()
        let arms = CardArms(now: { clock.now })
        _ = try arms.arm(walletAddress: "rAny", cardName: nil, device: nil, timeout: .seconds(30))
        let (_, expiresAt) = try arms.arm(walletAddress: "rTill", cardName: "Blue", device: "mock:till", timeout: .seconds(30))
        #expect(expiresAt == clock.now.addingTimeInterval(30))
        #expect(arms.take(forDevice: "mock:till")?.walletAddress == "rTill")
        #expect(arms.take(forDevice: "mock:till")?.walletAddress == "rAny")
        #expect(arms.take(forDevice: "mock:till") == nil)
    }

    @Test func expiredAndDisarmedArmsAreGone() throws {
        let clock = ManualClock()
        let arms = CardArms(now: { clock.now })
        let (token, _) = try arms.arm(walletAddress: "r1", cardName: nil, device: nil, timeout: .milliseconds(500))
        clock.advance(0.6)
        #expect(!arms.disarm(token))
        #expect(arms.take(forDevice: "x") == nil)
        let (second, _) = try arms.arm(walletAddress: "r2", cardName: nil, device: "door", timeout: .seconds(5))
        #expect(arms.take(forDevice: "till") == nil, "an arm for another device stays")
        #expect(arms.disarm(second))
        #expect(!arms.disarm(second))
    }

    @Test func armsOutstandingAreCappedAndExpiredOnesMakeRoom() throws {
        let clock = ManualClock()
        let arms = CardArms(limit: 2, now: { clock.now })
        let (first, _) = try arms.arm(walletAddress: "r1", cardName: nil, device: nil, timeout: .seconds(1))
        _ = try arms.arm(walletAddress: "r2", cardName: nil, device: nil, timeout: .seconds(10))
        let refused = #expect(throws: ScanBridgeError.self) {
            _ = try arms.arm(walletAddress: "r3", cardName: nil, device: nil, timeout: .seconds(10))
        }
        #expect(refused?.code == .overloaded && refused?.message.contains("cards.disarm") == true)
        #expect(arms.disarm(first))
        _ = try arms.arm(walletAddress: "r3", cardName: nil, device: nil, timeout: .seconds(10))
        clock.advance(11)
        _ = try arms.arm(walletAddress: "r4", cardName: nil, device: nil, timeout: .seconds(10))
        _ = try arms.arm(walletAddress: "r5", cardName: nil, device: nil, timeout: .seconds(10))
    }

    @Test func erasingAWalletWithdrawsItsArms() throws {
        let arms = CardArms()
        _ = try arms.arm(walletAddress: "rAda", cardName: nil, device: nil, timeout: .seconds(30))
        _ = try arms.arm(walletAddress: "rBob", cardName: nil, device: nil, timeout: .seconds(30))
        arms.disarm(walletAddress: "rAda")
        #expect(arms.take(forDevice: "door")?.walletAddress == "rBob")
        #expect(arms.take(forDevice: "door") == nil)
    }
}
