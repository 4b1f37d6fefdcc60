import GRDB
import ScanBridgeCore

/// Customers in the `customer` table, by wallet address.
public final class SQLiteCustomerRepository: CustomerRepository {
    let database: StoreDatabase

    public init(database: StoreDatabase) {
        self.database = database
    }

    public func customer(walletAddress: String) async throws -> Customer? {
        try await database.read("read customer \(walletAddress)") { db in
            try CustomerRecord.fetch(walletAddress: walletAddress, db)
        }
    }

    public func upsert(_ customer: Customer) async throws -> Customer {
        try await database.write("save customer \(customer.walletAddress)") { db in
            try CustomerRecord.upsert(customer, db)
        }
    }
}
