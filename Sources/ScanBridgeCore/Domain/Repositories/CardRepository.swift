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
    /// `security` is the new card's; a card linked already keeps its own.
    func link(uid: NFCUID, walletAddress: String, cardName: String?, security: Card.Security, at time: Date) async throws
        -> CardLinkOutcome
    /// The card with its new status; nil when there is no such card.
    func setStatus(uid: NFCUID, status: Card.Status) async throws -> Card?
    /// False when there was no such card.
    func unlink(uid: NFCUID) async throws -> Bool
    /// Accepts `counter` as the card's newest Secure Unique NFC read counter when it is higher
    /// than the last one accepted (or none was): one conditional write, so of two taps showing
    /// the same message, at one counter or two, one alone is accepted. False: a replay.
    func acceptReadCounter(uid: NFCUID, counter: Int) async throws -> Bool
}

extension CardRepository {
    /// Links a card identified by its UID alone (`Card.Security.uid`).
    public func link(uid: NFCUID, walletAddress: String, cardName: String?, at time: Date) async throws -> CardLinkOutcome {
        try await link(uid: uid, walletAddress: walletAddress, cardName: cardName, security: .uid, at: time)
    }
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
