import Foundation
import Logging
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
    /// This counter's name, kept beside the read counter it accepted.
    let counter: String
    let logger: Logger

    func card(uid: NFCUID) async throws -> Card? { try await local.card(uid: uid) }

    func identify(uid: NFCUID) async throws -> (card: Card, customer: Customer?)? { try await local.identify(uid: uid) }

    func cards(walletAddress: String?) async throws -> [Card] { try await local.cards(walletAddress: walletAddress) }

    func link(uid: NFCUID, walletAddress: String, cardName: String?, security: Card.Security, at time: Date)
        async throws -> CardLinkOutcome
    {
        try await writes.run("link a card") {
            try await $0.link(uid: uid, walletAddress: walletAddress, cardName: cardName, security: security, at: time, on: $1)
        }
    }

    /// Shop-wide: the shop's store judges, so a message shown at one counter is a replay at
    /// every other. Not a change the counters follow (no turn on the change log, no replica to
    /// wait for): one statement on the tap's path. While the store is away this counter judges
    /// alone, from the newest counter it has accepted itself, and the resolution says `offline`.
    func acceptReadCounter(uid: NFCUID, counter: Int) async throws -> Bool {
        if !writes.isOffline() {
            do {
                let (me, logger) = (self.counter, self.logger)
                let accepted = try await writes.cards.run("accept a card's read counter") { connection in
                    try await SharedCards.acceptReadCounter(
                        uid: uid, counter: counter, counterID: me, on: connection, logger: logger)
                }
                guard accepted else { return false }
                // Kept here too, for the taps this counter judges alone while the store is away.
                _ = try await local.acceptReadCounter(uid: uid, counter: counter)
                return true
            } catch {
                logger.warning(
                    "the shop's store did not answer for a card's read counter; this counter judges it alone",
                    metadata: ["store": "\(writes.location)", "error": "\(SharedStoreError.reason(error))"])
            }
        }
        return try await local.acceptReadCounter(uid: uid, counter: counter)
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
