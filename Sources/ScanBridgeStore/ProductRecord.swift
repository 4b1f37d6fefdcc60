import GRDB
// SQLite's own API, which GRDB builds on. Not declared as the product `GRDBSQLite` in
// Package.swift: naming a second product of GRDB makes a full release build also link
// `GRDB-dynamic`, which fails with `--static-swift-stdlib`.
import GRDBSQLite
import ScanBridgeCore
import ScanBridgeModel

/// A row of `product`: a `Product` with its price in minor units, its derived GTIN-14 and
/// its times. Read by column position straight from the statement (reads select `columns`
/// in this order), because the scan lookup decodes one of these per scan.
struct ProductRecord: TableRecord, Sendable {
    static let databaseTableName = "product"

    /// The columns every read selects, in the order `init(row:)` reads them.
    static let columns = """
        id, storeId, name, priceMinor, currency, sku, category, barcode, trackStock, quantity, \
        lowStockThreshold, allowNegativeStock, parentId, variant
        """

    /// Inserts a product, or replaces the one with its id: `createdAtMs` stays the first one.
    static let upsertSQL = """
        INSERT INTO product (id, storeId, name, priceMinor, currency, sku, category, barcode, gtin, trackStock, \
        quantity, lowStockThreshold, allowNegativeStock, parentId, variant, createdAtMs, updatedAtMs)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT(id) DO UPDATE SET
            storeId = excluded.storeId, name = excluded.name, priceMinor = excluded.priceMinor,
            currency = excluded.currency, sku = excluded.sku, category = excluded.category,
            barcode = excluded.barcode, gtin = excluded.gtin, trackStock = excluded.trackStock,
            quantity = excluded.quantity, lowStockThreshold = excluded.lowStockThreshold,
            allowNegativeStock = excluded.allowNegativeStock, parentId = excluded.parentId,
            variant = excluded.variant, updatedAtMs = excluded.updatedAtMs
        """

    /// The `storeId` of a product of no store: not NULL, so "no store" is one store for the
    /// unique keys (migration "v6-product-store-scope").
    static let noStore = ""

    /// The `storeId` column's value for a product's store.
    static func storeColumn(_ storeId: String?) -> String {
        storeId ?? noStore
    }

    var product: Product

    init(_ product: Product) {
        self.product = product
    }

    /// The product of the first row `statement` (selecting `columns`) gives, stepped and decoded
    /// straight through SQLite's API: the scan lookup's path, where GRDB's cursor would wrap
    /// every column of every scan's row in a `DatabaseValue` (docs/architecture.md, Design decisions).
    static func fetchFirst(_ statement: Statement, arguments: StatementArguments) throws -> Product? {
        statement.setUncheckedArguments(arguments)
        let row = statement.sqliteStatement
        // A statement left on a row keeps its read snapshot, and the log could not be checkpointed.
        defer { sqlite3_reset(row) }
        switch sqlite3_step(row) {
        case SQLITE_ROW: break
        case SQLITE_DONE: return nil
        case let code:
            throw DatabaseError(
                resultCode: ResultCode(rawValue: code),
                message: String(cString: sqlite3_errmsg(sqlite3_db_handle(row))), sql: statement.sql)
        }
        func text(_ index: CInt) -> String { String(sqliteStatement: row, index: index) }
        func optionalText(_ index: CInt) -> String? {
            sqlite3_column_type(row, index) == SQLITE_NULL ? nil : String(sqliteStatement: row, index: index)
        }
        func integer(_ index: CInt) -> Int64 { sqlite3_column_int64(row, index) }
        func bool(_ index: CInt) -> Bool { sqlite3_column_int64(row, index) != 0 }
        let store = text(1)
        return Product(
            id: text(0), storeId: store == noStore ? nil : store, name: text(2),
            price: Money(minorUnits: integer(3), currency: text(4)),
            sku: optionalText(5), category: optionalText(6), barcode: optionalText(7), trackStock: bool(8),
            quantity: integer(9), lowStockThreshold: integer(10), allowNegativeStock: bool(11),
            parentId: optionalText(12), variant: optionalText(13))
    }

    /// The arguments of `upsertSQL`, with the GTIN computed once by the caller.
    func upsertArguments(gtin: String?, nowMs: Int64) -> StatementArguments {
        let product = product
        return [
            product.id, Self.storeColumn(product.storeId), product.name, product.price.minorUnits, product.price.currency,
            product.sku, product.category, product.barcode, gtin, product.trackStock, product.quantity,
            product.lowStockThreshold, product.allowNegativeStock, product.parentId, product.variant, nowMs, nowMs,
        ]
    }
}
