import ScanBridgeCore

extension Repositories {
    /// The domain repositories on the daemon's SQLite database.
    public static func sqlite(_ database: StoreDatabase) -> Repositories {
        Repositories(
            products: SQLiteProductRepository(database: database), cards: SQLiteCardRepository(database: database),
            customers: SQLiteCustomerRepository(database: database), orders: SQLiteOrderRepository(database: database))
    }
}
