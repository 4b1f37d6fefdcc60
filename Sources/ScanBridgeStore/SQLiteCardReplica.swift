import GRDB
import ScanBridgeCodes
import ScanBridgeCore
import ScanBridgeModel

/// The `customer` and `card` tables as a replica of the shop's store (`CardReplicaStore`).
package final class SQLiteCardReplica: CardReplicaStore {
    let database: StoreDatabase

    package init(database: StoreDatabase) {
        self.database = database
    }

    package func put(customers: [Customer]) async throws {
        guard !customers.isEmpty else { return }
        try await database.write("copy \(customers.count) customers from the shop's store") { db in
            for customer in customers { try CustomerRecord.replace(customer, db) }
        }
    }

    package func put(cards: [Card]) async throws {
        guard !cards.isEmpty else { return }
        try await database.write("copy \(cards.count) cards from the shop's store") { db in
            for card in cards {
                try db.cachedStatement(sql: "DELETE FROM card WHERE uid = ?").execute(arguments: [card.uid.hex])
                try CardRecord(card).insert(db)
            }
        }
    }

    package func remove(cardUIDs: [NFCUID]) async throws {
        guard !cardUIDs.isEmpty else { return }
        try await database.write("remove \(cardUIDs.count) cards the shop's store no longer has") { db in
            for uid in cardUIDs {
                try db.cachedStatement(sql: "DELETE FROM card WHERE uid = ?").execute(arguments: [uid.hex])
            }
        }
    }

    package func remove(customerWallets: [String]) async throws {
        guard !customerWallets.isEmpty else { return }
        try await database.write("remove \(customerWallets.count) customers the shop's store no longer has") { db in
            for wallet in customerWallets {
                try db.cachedStatement(sql: "DELETE FROM card WHERE walletAddress = ?").execute(arguments: [wallet])
                try db.cachedStatement(sql: "DELETE FROM customer WHERE walletAddress = ?").execute(arguments: [wallet])
            }
        }
    }

    package func keys() async throws -> (customerWallets: Set<String>, cardUIDs: Set<String>) {
        try await database.read("list the cards and customers held") { db in
            let wallets = try String.fetchSet(db, sql: "SELECT walletAddress FROM customer")
            let uids = try String.fetchSet(db, sql: "SELECT uid FROM card")
            return (wallets, uids)
        }
    }
}
