public import Foundation
public import ScanBridgeCodes
public import ScanBridgeModel

/// What linking a card to a wallet did.
public enum CardLinkOutcome: Sendable, Hashable {
    /// The card is now linked to the wallet (customer created when new, first-link milestone set).
    case linked(Card, Customer)
    /// It already was linked to this wallet: nothing changed.
    case alreadyLinked(Card, Customer)
    /// It is linked to another wallet: nothing changed.
    case conflict(Card)
}

/// NFC cards and their links to wallets. Every change is one transaction.
public protocol CardRepository: Sendable {
    func card(uid: NFCUID) async throws -> Card?
    /// The card and the customer it identifies, in one read.
    func identify(uid: NFCUID) async throws -> (card: Card, customer: Customer?)?
    /// Every card, or a wallet's cards, oldest first.
    func cards(walletAddress: String?) async throws -> [Card]
    /// Links `uid` to `walletAddress`: creates the customer when missing and sets its
    /// `firstCardLinkedAt` when unset, in the same transaction as the card.
    func link(uid: NFCUID, walletAddress: String, cardName: String?, at time: Date) async throws -> CardLinkOutcome
    /// The card with its new status; nil when there is no such card.
    func setStatus(uid: NFCUID, status: Card.Status) async throws -> Card?
    /// False when there was no such card.
    func unlink(uid: NFCUID) async throws -> Bool
}

/// Customers by wallet address.
public protocol CustomerRepository: Sendable {
    func customer(walletAddress: String) async throws -> Customer?
    /// Creates or updates a customer: `name`, `email` and `phone` replace the stored ones when
    /// given (nil keeps them); `createdAt` and milestones already set are kept, milestones
    /// given and still unset are set.
    func upsert(_ customer: Customer) async throws -> Customer
    /// Erases a customer: unlinks their cards and deletes their record, in one transaction.
    /// Returns how many cards were unlinked; a wallet the store does not know erases nothing.
    func erase(walletAddress: String) async throws -> Int
}
