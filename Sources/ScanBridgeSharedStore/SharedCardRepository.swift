import Foundation
import PostgresNIO
import ScanBridgeCodes
import ScanBridgeCore
import ScanBridgeModel

/// Cards with a shared store: read from this counter's replica, so a tap never waits on the
/// network; written to the shop's store, shop-wide and atomic, and then read back here once
/// the replica has followed the change, so this counter sees its own write at once.
struct SharedCardRepository: CardRepository {
    let local: any CardRepository
    let writes: SharedWrites

    func card(uid: NFCUID) async throws -> Card? { try await local.card(uid: uid) }

    func identify(uid: NFCUID) async throws -> (card: Card, customer: Customer?)? { try await local.identify(uid: uid) }

    func cards(walletAddress: String?) async throws -> [Card] { try await local.cards(walletAddress: walletAddress) }

    func link(uid: NFCUID, walletAddress: String, cardName: String?, at time: Date) async throws -> CardLinkOutcome {
        try await writes.run("link a card") {
            try await $0.link(uid: uid, walletAddress: walletAddress, cardName: cardName, at: time, on: $1)
        }
    }

    func setStatus(uid: NFCUID, status: Card.Status) async throws -> Card? {
        try await writes.run("change a card's status") { try await $0.setStatus(uid: uid, status: status, on: $1) }
    }

    func unlink(uid: NFCUID) async throws -> Bool {
        try await writes.run("unlink a card") { try await $0.unlink(uid: uid, on: $1) }
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
        try await writes.run("save a customer") { try await $0.upsert(customer, on: $1) }
    }

    func erase(walletAddress: String) async throws -> Int {
        try await writes.run("erase a customer") { try await $0.erase(walletAddress: walletAddress, on: $1) }.count
    }
}
