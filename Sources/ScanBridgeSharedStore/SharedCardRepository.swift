import Foundation
import PostgresNIO
import ScanBridgeCodes
import ScanBridgeCore
import ScanBridgeModel

/// Cards with a shared store: read from this counter's replica, so a tap never waits on the
/// network; written to the shop's store first, shop-wide and atomic, then to the replica, so
/// this counter reads its own change at once and the others when they are told of it.
struct SharedCardRepository: CardRepository {
    let local: any CardRepository
    let writes: SharedWrites

    func card(uid: NFCUID) async throws -> Card? { try await local.card(uid: uid) }

    func identify(uid: NFCUID) async throws -> (card: Card, customer: Customer?)? { try await local.identify(uid: uid) }

    func cards(walletAddress: String?) async throws -> [Card] { try await local.cards(walletAddress: walletAddress) }

    func link(uid: NFCUID, walletAddress: String, cardName: String?, at time: Date) async throws -> CardLinkOutcome {
        let outcome = try await writes.run("link a card") {
            try await $0.link(uid: uid, walletAddress: walletAddress, cardName: cardName, at: time, on: $1)
        }
        switch outcome {
        case .linked(let card, let customer), .alreadyLinked(let card, let customer):
            try await writes.replica.put(customers: [customer])
            try await writes.replica.put(cards: [card])
        case .conflict:
            // Another wallet's card: the change that linked it reaches the replica as any other.
            break
        }
        return outcome
    }

    func setStatus(uid: NFCUID, status: Card.Status) async throws -> Card? {
        let card = try await writes.run("change a card's status") { try await $0.setStatus(uid: uid, status: status, on: $1) }
        if let card { try await writes.replica.put(cards: [card]) }
        return card
    }

    func unlink(uid: NFCUID) async throws -> Bool {
        let unlinked = try await writes.run("unlink a card") { try await $0.unlink(uid: uid, on: $1) }
        try await writes.replica.remove(cardUIDs: [uid])
        return unlinked
    }
}

/// Customers with a shared store, as `SharedCardRepository` does cards.
struct SharedCustomerRepository: CustomerRepository {
    let local: any CustomerRepository
    let writes: SharedWrites

    func customer(walletAddress: String) async throws -> Customer? {
        try await local.customer(walletAddress: walletAddress)
    }

    func upsert(_ customer: Customer) async throws -> Customer {
        let stored = try await writes.run("save a customer") { try await $0.upsert(customer, on: $1) }
        try await writes.replica.put(customers: [stored])
        return stored
    }

    func erase(walletAddress: String) async throws -> Int {
        let cards = try await writes.run("erase a customer") { try await $0.erase(walletAddress: walletAddress, on: $1) }
        try await writes.replica.remove(cardUIDs: cards)
        try await writes.replica.remove(customerWallets: [walletAddress])
        return cards.count
    }
}

/// A write to the shop's store, bounded in time: while the store is away, the answer is
/// `-32004` naming it, at once rather than when the pool gives up.
struct SharedWrites: Sendable {
    let cards: SharedCards
    let replica: any CardReplicaStore
    let location: SharedStoreLocation

    func run<T: Sendable>(
        _ what: String, _ body: @escaping @Sendable (SharedCards, PostgresConnection) async throws -> T
    ) async throws -> T {
        do {
            return try await cards.run(what) { [cards] in try await body(cards, $0) }
        } catch let error as ScanBridgeError {
            throw error
        } catch {
            throw ScanBridgeError.unavailable(
                "cannot \(what): the shop's store \(location) cannot be reached (\(SharedStoreError.reason(error))); "
                    + "taps and lookups go on from this counter's copy, changes wait for the store")
        }
    }
}
