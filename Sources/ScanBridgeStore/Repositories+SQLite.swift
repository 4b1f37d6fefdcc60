package import ScanBridgeCore
import ScanBridgeModel

extension Repositories {
    /// The domain repositories on the daemon's SQLite database.
    package static func sqlite(_ database: StoreDatabase, catalog: SQLiteProductRepository? = nil) -> Repositories {
        Repositories(
            products: catalog ?? SQLiteProductRepository(database: database), cards: SQLiteCardRepository(database: database),
            customers: SQLiteCustomerRepository(database: database), orders: SQLiteOrderRepository(database: database))
    }
}
