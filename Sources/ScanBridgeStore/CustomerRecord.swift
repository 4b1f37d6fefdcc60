import GRDB
import ScanBridgeCore
import ScanBridgeModel

/// A row of `customer`: a `Customer` with its times in milliseconds.
struct CustomerRecord: FetchableRecord, TableRecord, Sendable {
    static let databaseTableName = "customer"

    /// The columns every read selects, in the order `init(row:)` reads them.
    static let columns = """
        walletAddress, name, email, phone, firstCardLinkedAtMs, firstPaymentAtMs, autoSignEnabledAtMs, createdAtMs
        """

    /// Creates a customer, or updates the one with its wallet: `name`, `email` and `phone`
    /// replace the stored ones when given; `createdAtMs` stays; a milestone is set only once.
    static let upsertSQL = """
        INSERT INTO customer (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT(walletAddress) DO UPDATE SET
            name = coalesce(excluded.name, name),
            email = coalesce(excluded.email, email),
            phone = coalesce(excluded.phone, phone),
            firstCardLinkedAtMs = coalesce(firstCardLinkedAtMs, excluded.firstCardLinkedAtMs),
            firstPaymentAtMs = coalesce(firstPaymentAtMs, excluded.firstPaymentAtMs),
            autoSignEnabledAtMs = coalesce(autoSignEnabledAtMs, excluded.autoSignEnabledAtMs)
        """

    /// Puts the customer as given, every column (a replica's copy of the shop's row). An
    /// update, not a delete and insert, so the cards that name the customer stay.
    static let replaceSQL = """
        INSERT INTO customer (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT(walletAddress) DO UPDATE SET
            name = excluded.name, email = excluded.email, phone = excluded.phone,
            firstCardLinkedAtMs = excluded.firstCardLinkedAtMs, firstPaymentAtMs = excluded.firstPaymentAtMs,
            autoSignEnabledAtMs = excluded.autoSignEnabledAtMs, createdAtMs = excluded.createdAtMs
        """

    var customer: Customer

    init(_ customer: Customer) {
        self.customer = customer
    }

    init(row: Row) {
        customer = Customer(
            walletAddress: row[0], name: row[1], email: row[2], phone: row[3],
            milestones: Customer.Milestones(
                firstCardLinkedAt: StoreTime.date(row[4] as Int64?), firstPaymentAt: StoreTime.date(row[5] as Int64?),
                autoSignEnabledAt: StoreTime.date(row[6] as Int64?)),
            createdAt: StoreTime.date(row[7] as Int64))
    }

    var upsertArguments: StatementArguments {
        let milestones = customer.milestones
        return [
            customer.walletAddress, customer.name, customer.email, customer.phone,
            milestones.firstCardLinkedAt.map(StoreTime.milliseconds), milestones.firstPaymentAt.map(StoreTime.milliseconds),
            milestones.autoSignEnabledAt.map(StoreTime.milliseconds), StoreTime.milliseconds(customer.createdAt),
        ]
    }

    /// Upserts `customer` and reads back what is stored. Call inside a write transaction.
    static func upsert(_ customer: Customer, _ db: Database) throws -> Customer {
        try db.cachedStatement(sql: upsertSQL).execute(arguments: CustomerRecord(customer).upsertArguments)
        guard let stored = try fetch(walletAddress: customer.walletAddress, db) else {
            throw ScanBridgeError(.internalError, "customer \(customer.walletAddress) was saved but cannot be read back")
        }
        return stored
    }

    static func replace(_ customer: Customer, _ db: Database) throws {
        try db.cachedStatement(sql: replaceSQL).execute(arguments: CustomerRecord(customer).upsertArguments)
    }

    static func fetch(walletAddress: String, _ db: Database) throws -> Customer? {
        try fetchOne(
            db.cachedStatement(sql: "SELECT \(columns) FROM customer WHERE walletAddress = ?"), arguments: [walletAddress]
        )?.customer
    }
}
