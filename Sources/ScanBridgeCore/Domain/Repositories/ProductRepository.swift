import ScanBridgeModel

/// How a scanned code finds a product.
public enum ProductKey: Sendable, Hashable {
    /// A GTIN-14 (every EAN/UPC/ITF-14 form normalised to it).
    case gtin(String)
    /// A label that is not a GTIN (Code 128, Code 39): the catalog SKU, else the barcode text.
    case skuOrBarcode(String)
}

/// The catalog. Implementations: SQLite (`ScanBridgeStore`), later a shared server
/// database; handlers see only this protocol.
public protocol ProductRepository: Sendable {
    func product(id: String) async throws -> Product?
    /// The product `key` names that a daemon serving `store` finds (`Product.isVisible(to:)`).
    ///
    /// When several have the key: with a store, that store's product before the one of no
    /// store; with none (nil), the product of no store, then the one of the store whose id
    /// sorts first (bytewise). Among a store's products sharing a barcode text (not a GTIN,
    /// not a SKU), the oldest.
    func product(_ key: ProductKey, visibleTo store: String?) async throws -> Product?
    /// Inserts or replaces each product by id, all in one transaction; returns them as stored.
    /// Throws `conflict` naming the product when its GTIN or SKU belongs to another product
    /// of the same store, "no store" counting as one store (nothing of the batch is stored then).
    func upsert(_ products: [Product]) async throws -> [Product]
    /// False when there was no such product.
    func delete(id: String) async throws -> Bool
    func count() async throws -> Int
}
