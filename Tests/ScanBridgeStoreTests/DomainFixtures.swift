import Foundation
import GRDB
import ScanBridgeCodes
import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeStore

/// A time with whole milliseconds, as the store keeps them.
func time(_ milliseconds: Int64) -> Date {
    Date(timeIntervalSince1970: Double(milliseconds) / 1000)
}

func uid(_ text: String) throws -> NFCUID {
    try NFCUID(parsing: text)
}

func product(
    _ id: String, store: String? = "store_1", barcode: String? = nil, sku: String? = nil, pence: Int64 = 350
) -> Product {
    Product(
        id: id, storeId: store, name: "Product \(id)", price: Money(minorUnits: pence, currency: "GBP"), sku: sku,
        category: "snacks", barcode: barcode, trackStock: true, quantity: 12, lowStockThreshold: 3)
}

func rowCount(_ database: StoreDatabase, _ table: String) throws -> Int {
    try database.pool.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM \(table)") ?? 0 }
}

/// One row read synchronously (a test's look under the repository).
func fetchRow(_ database: StoreDatabase, _ sql: String) throws -> Row? {
    try database.pool.read { try Row.fetchOne($0, sql: sql) }
}

func migrations(_ database: StoreDatabase) throws -> [String] {
    try database.pool.read { try String.fetchAll($0, sql: "SELECT identifier FROM grdb_migrations ORDER BY rowid") }
}

func tableExists(_ database: StoreDatabase, _ table: String) throws -> Bool {
    try database.pool.read { try $0.tableExists(table) }
}
