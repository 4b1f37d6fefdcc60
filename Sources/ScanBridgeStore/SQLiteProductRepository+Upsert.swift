import GRDB
import ScanBridgeCore
import ScanBridgeModel

/// Batch upserts: one transaction and one cached statement per batch. The schema enforces
/// one product per GTIN and per SKU in a store ("no store" being one); when it refuses a row, the conflict is
/// explained while the transaction still holds the batch's earlier rows, then the whole
/// batch is rolled back.
extension SQLiteProductRepository {
    /// Writes `products` in order, with their GTIN-14s. Call inside a write transaction.
    static func upsert(_ products: [Product], gtins: [String?], nowMs: Int64, _ db: Database) throws {
        let statement = try db.cachedStatement(sql: ProductRecord.upsertSQL)
        for index in products.indices {
            let product = products[index]
            let gtin = gtins[index]
            statement.setUncheckedArguments(ProductRecord(product).upsertArguments(gtin: gtin, nowMs: nowMs))
            do {
                try statement.execute()
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                throw try refusal(error, at: index, of: products, gtin: gtin, db)
            }
        }
    }

    /// Why the schema refused `products[index]`, naming the product that holds its GTIN or
    /// SKU; `field` is the index path inside the batch (`[3].barcode`).
    private static func refusal(
        _ error: DatabaseError, at index: Int, of products: [Product], gtin: String?, _ db: Database
    ) throws -> any Error {
        let product = products[index]
        switch error.extendedResultCode {
        case .SQLITE_CONSTRAINT_UNIQUE:
            if let gtin, let owner = try owner(of: "gtin", gtin, besides: product, db) {
                let what = product.barcode == gtin ? "GTIN \(gtin)" : "GTIN \(gtin) (barcode \(product.barcode ?? ""))"
                return ScanBridgeError(
                    .conflict, conflictMessage(what, owner: owner, index: index, products: products),
                    field: "[\(index)].barcode")
            }
            if let sku = product.sku, let owner = try owner(of: "sku", sku, besides: product, db) {
                return ScanBridgeError(
                    .conflict, conflictMessage("SKU \(sku)", owner: owner, index: index, products: products),
                    field: "[\(index)].sku")
            }
            return error
        case .SQLITE_CONSTRAINT_CHECK:
            // The domain validates its input; this is the schema's own guard.
            let (field, rule) =
                if product.price.minorUnits < 0 { ("price", "must not be negative") } else if product.lowStockThreshold < 0 {
                    ("lowStockThreshold", "must not be negative")
                } else { ("currency", "must be a three-letter ISO 4217 code") }
            return ScanBridgeError.invalidParams(
                "[\(index)].\(field) of product \(product.id) \(rule)", field: "[\(index)].\(field)")
        default:
            return error
        }
    }

    /// The other product of the product's store ("no store" being one) whose `column` is
    /// `value`, as the transaction sees it.
    private static func owner(of column: String, _ value: String, besides product: Product, _ db: Database) throws
        -> String?
    {
        try String.fetchOne(
            db, sql: "SELECT id FROM product WHERE \(column) = ? AND storeId = ? AND id <> ? LIMIT 1",
            arguments: [value, ProductRecord.storeColumn(product.storeId), product.id])
    }

    private static func conflictMessage(_ what: String, owner: String, index: Int, products: [Product]) -> String {
        let product = products[index]
        let store = if let storeId = product.storeId { "in store \(storeId)" } else { "among the products of no store" }
        if let earlier = products[..<index].lastIndex(where: { $0.id == owner }) {
            return "\(what) is given to both product \(owner) ([\(earlier)]) and product \(product.id) ([\(index)]) "
                + "of this batch, \(store); one product per store may have it: remove it from one of them"
        }
        return "\(what) already belongs to product \(owner) \(store); "
            + "delete \(owner) or give this product the id \(owner)"
    }
}
