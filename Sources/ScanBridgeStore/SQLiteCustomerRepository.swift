import GRDB
import ScanBridgeCore
package import ScanBridgeModel

/// Customers in the `customer` table, by wallet address.
package final class SQLiteCustomerRepository: CustomerRepository {
    let database: StoreDatabase

    package init(database: StoreDatabase) {
        self.database = database
    }

    package func customer(walletAddress: String) async throws -> Customer? {
        try await database.read("read customer \(walletAddress)") { db in
            try CustomerRecord.fetch(walletAddress: walletAddress, db)
        }
    }

    package func upsert(_ customer: Customer) async throws -> Customer {
        try await database.write("save customer \(customer.walletAddress)") { db in
            try CustomerRecord.upsert(customer, db)
        }
    }

    package func erase(walletAddress: String) async throws -> Int {
        try await database.write("erase customer \(walletAddress)") { db in
            try db.cachedStatement(sql: "DELETE FROM card WHERE walletAddress = ?").execute(arguments: [walletAddress])
            let cards = db.changesCount
            try db.cachedStatement(sql: "DELETE FROM customer WHERE walletAddress = ?").execute(arguments: [walletAddress])
            return cards
        }
    }
}
