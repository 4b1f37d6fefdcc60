import GRDB
import ScanBridgeCore
import ScanBridgeModel

/// The `customer` and `card` tables as a replica of the shop's store (`CardReplicaStore`),
/// with `shop_replica` saying how far.
package final class SQLiteCardReplica: CardReplicaStore {
    let database: StoreDatabase

    package init(database: StoreDatabase) {
        self.database = database
    }

    package func position() async throws -> ReplicaPosition? {
        try await database.read("read where the copy of the shop's cards stands") { db in
            try Row.fetchOne(db, sql: "SELECT shopId, lastChange FROM shop_replica").map {
                ReplicaPosition(shop: $0["shopId"], lastChange: $0["lastChange"])
            }
        }
    }

    package func holdsAny() async throws -> Bool {
        try await database.read("see whether this counter has cards or customers") { db in
            try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM customer) OR EXISTS (SELECT 1 FROM card)") ?? false
        }
    }

    package func apply(_ batch: ReplicaBatch) async throws {
        try await database.write("copy the shop's changes to cards and customers") { db in
            // Customers first, for the cards that name them; cards gone before their customer.
            for customer in batch.customers { try CustomerRecord.replace(customer, db) }
            let removeCard = try db.cachedStatement(sql: "DELETE FROM card WHERE uid = ?")
            for uid in batch.goneCards { try removeCard.execute(arguments: [uid]) }
            for card in batch.cards {
                try removeCard.execute(arguments: [card.uid.hex])
                try CardRecord(card).insert(db)
            }
            for wallet in batch.goneCustomers {
                try db.cachedStatement(sql: "DELETE FROM card WHERE walletAddress = ?").execute(arguments: [wallet])
                try db.cachedStatement(sql: "DELETE FROM customer WHERE walletAddress = ?").execute(arguments: [wallet])
            }
            try db.execute(
                sql: """
                    INSERT INTO shop_replica (one, shopId, lastChange) VALUES (1, ?, ?)
                    ON CONFLICT (one) DO UPDATE SET shopId = excluded.shopId, lastChange = excluded.lastChange
                    """, arguments: [batch.through.shop, batch.through.lastChange])
        }
    }

    package func heldCustomers(after: String, limit: Int) async throws -> [Customer] {
        try await database.read("read this counter's customers") { db in
            try CustomerRecord.fetchAll(
                db, sql: "SELECT \(CustomerRecord.columns) FROM customer WHERE walletAddress > ? ORDER BY walletAddress LIMIT ?",
                arguments: [after, limit]
            ).map(\.customer)
        }
    }

    package func heldCards(after: String, limit: Int) async throws -> [Card] {
        try await database.read("read this counter's cards") { db in
            try CardRecord.fetchAll(
                db, sql: "SELECT \(CardRecord.columns) FROM card WHERE uid > ? ORDER BY uid LIMIT ?", arguments: [after, limit]
            ).map(\.card)
        }
    }
}
