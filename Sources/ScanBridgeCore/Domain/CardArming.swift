public import Foundation
public import ScanBridgeModel

/// One-shot arms for linking: the next unknown card tapped (on `device`, when given) is
/// linked to the wallet. `cards.arm` and `cards.disarm` drive it; the card-link handler
/// uses the arms up.
public protocol CardArming: Sendable {
    /// Arms a link and returns its token and when it expires; `overloaded` when as many arms
    /// as the daemon holds are outstanding already.
    /// `security` is the linked card's (`Card.Security`): a `secure` arm links only a tap whose
    /// Secure Unique NFC message verified.
    func arm(walletAddress: String, cardName: String?, security: Card.Security, device: String?, timeout: Duration)
        throws(ScanBridgeError) -> (token: String, expiresAt: Date)
    /// False when there is no such arm (used, expired or never made).
    func disarm(_ token: String) -> Bool
    /// Withdraws every arm for the wallet (its customer was erased: a tap must not bring them back).
    func disarm(walletAddress: String)
}
