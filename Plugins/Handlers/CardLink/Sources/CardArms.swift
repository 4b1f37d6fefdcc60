package import Foundation
import ScanBridgeCore
package import ScanBridgeModel
import Synchronization

/// The one-shot arms of `cards.arm`. The next NFC scan that an arm applies to (the one for
/// its device, else the oldest arm for any device) uses it up, whatever the outcome.
package final class CardArms: CardArming, Sendable {
    package struct Arm: Sendable, Hashable {
        package let token: String
        package let walletAddress: String
        package let cardName: String?
        package let security: Card.Security
        package let device: String?
        package let expiresAt: Date
    }

    private struct State {
        var arms: [Arm] = []
        var next = 1
    }

    /// Arms outstanding at most, for the daemon: each is held until a tap or its expiry, so a
    /// client arming in a loop would otherwise grow memory and the list every tap searches.
    package static let defaultLimit = 64

    private let state = Mutex(State())
    private let now: @Sendable () -> Date
    private let limit: Int

    /// `now` is injected so expiry can be tested without waiting.
    package init(limit: Int = defaultLimit, now: @escaping @Sendable () -> Date = Date.init) {
        self.limit = limit
        self.now = now
    }

    package func arm(
        walletAddress: String, cardName: String?, security: Card.Security = .uid, device: String?, timeout: Duration
    ) throws(ScanBridgeError) -> (token: String, expiresAt: Date) {
        let now = now()
        let expiresAt = now.addingTimeInterval(
            Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18)
        return try state.withLock { state throws(ScanBridgeError) in
            state.arms.removeAll { $0.expiresAt <= now }
            guard state.arms.count < limit else {
                throw .overloaded(
                    "\(limit) card links are armed already, the most this daemon holds; disarm one (cards.disarm) or wait for one to be used or expire"
                )
            }
            let token = "arm\(state.next)-\(String(UInt32.random(in: .min ... .max), radix: 36))"
            state.next += 1
            state.arms.append(
                Arm(
                    token: token, walletAddress: walletAddress, cardName: cardName, security: security, device: device,
                    expiresAt: expiresAt))
            return (token, expiresAt)
        }
    }

    package func disarm(_ token: String) -> Bool {
        let now = now()
        return state.withLock { state in
            state.arms.removeAll { $0.expiresAt <= now }
            guard let index = state.arms.firstIndex(where: { $0.token == token }) else { return false }
            state.arms.remove(at: index)
            return true
        }
    }

    package func disarm(walletAddress: String) {
        state.withLock { $0.arms.removeAll { $0.walletAddress == walletAddress } }
    }

    /// Takes the arm a scan on `device` uses up: the device's own arm first, else the oldest
    /// arm for any device. Expired arms are dropped on the way.
    func take(forDevice device: String) -> Arm? {
        let now = now()
        return state.withLock { state in
            state.arms.removeAll { $0.expiresAt <= now }
            let index = state.arms.firstIndex { $0.device == device } ?? state.arms.firstIndex { $0.device == nil }
            return index.map { state.arms.remove(at: $0) }
        }
    }
}
