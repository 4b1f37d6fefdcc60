package import Foundation
import GRDB
package import ScanBridgeCodes
package import ScanBridgeCore
package import ScanBridgeModel

/// NFC cards in the `card` table. Every change is one write transaction on the single
/// writer, so two readers tapping the same new card cannot both link it.
package final class SQLiteCardRepository: CardRepository {
    let database: StoreDatabase

    package init(database: StoreDatabase) {
        self.database = database
    }

    package func card(uid: NFCUID) async throws -> Card? {
        try await database.read("read card \(uid.display)") { db in try CardRecord.fetch(uid: uid, db) }
    }

    package func identify(uid: NFCUID) async throws -> (card: Card, customer: Customer?)? {
        // On the tap's path: a point read, like the product lookup of a barcode.
        let found = try database.pointRead("identify card \(uid.display)") { db -> Identified? in
            guard let card = try CardRecord.fetch(uid: uid, db) else { return nil }
            return Identified(card: card, customer: try CustomerRecord.fetch(walletAddress: card.walletAddress, db))
        }
        return found.map { ($0.card, $0.customer) }
    }

    package func cards(walletAddress: String?) async throws -> [Card] {
        try await database.read("list the cards") { db in
            let select = "SELECT \(CardRecord.columns) FROM card"
            let order = "ORDER BY createdAtMs, rowid"
            guard let walletAddress else {
                return try CardRecord.fetchAll(db, sql: "\(select) \(order)").map(\.card)
            }
            return try CardRecord.fetchAll(db, sql: "\(select) WHERE walletAddress = ? \(order)", arguments: [walletAddress])
                .map(\.card)
        }
    }

    package func link(uid: NFCUID, walletAddress: String, cardName: String?, security: Card.Security, at time: Date)
        async throws -> CardLinkOutcome
    {
        // What is returned is what a later read gives.
        let time = StoreTime.stored(time)
        return try await database.write("link card \(uid.display)") { db in
            if let existing = try CardRecord.fetch(uid: uid, db) {
                guard existing.walletAddress == walletAddress else { return .conflict(existing) }
                guard let customer = try CustomerRecord.fetch(walletAddress: walletAddress, db) else {
                    throw ScanBridgeError(
                        .internalError, "card \(uid.display) is linked to \(walletAddress), which has no customer")
                }
                return .alreadyLinked(existing, customer)
            }
            // Created when new; an existing customer only gets its first-link time when unset.
            let customer = try CustomerRecord.upsert(
                Customer(walletAddress: walletAddress, milestones: Customer.Milestones(firstCardLinkedAt: time), createdAt: time),
                db)
            let card = Card(
                uid: uid, walletAddress: walletAddress, cardName: cardName, status: .active, security: security, createdAt: time)
            try CardRecord(card).insert(db)
            return .linked(card, customer)
        }
    }

    package func setStatus(uid: NFCUID, status: Card.Status) async throws -> Card? {
        try await database.write("change the status of card \(uid.display)") { db in
            try db.cachedStatement(sql: "UPDATE card SET status = ? WHERE uid = ?").execute(arguments: [status.rawValue, uid.hex])
            guard db.changesCount > 0 else { return nil }
            return try CardRecord.fetch(uid: uid, db)
        }
    }

    package func acceptReadCounter(uid: NFCUID, counter: Int) async throws -> Bool {
        // On the tap's path, before its event is journaled: durable with that event's commit.
        try await database.writeSyncedByNextCommit("accept the read counter of card \(uid.display)") { db in
            try db.cachedStatement(
                sql: """
                    INSERT INTO card_read_counter (uid, counter) VALUES (?, ?)
                    ON CONFLICT (uid) DO UPDATE SET counter = excluded.counter WHERE excluded.counter > card_read_counter.counter
                    """
            ).execute(arguments: [uid.hex, counter])
            return db.changesCount > 0
        }
    }

    package func unlink(uid: NFCUID) async throws -> Bool {
        try await database.write("unlink card \(uid.display)") { db in
            try db.cachedStatement(sql: "DELETE FROM card WHERE uid = ?").execute(arguments: [uid.hex])
            return db.changesCount > 0
        }
    }
}

/// A card and its customer, as one Sendable value out of a read.
private struct Identified: Sendable {
    var card: Card
    var customer: Customer?
}
