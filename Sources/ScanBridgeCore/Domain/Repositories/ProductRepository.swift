public import ScanBridgeModel

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
    // Listing and staged replacement: see the extension below (defaults refuse, so a store
    // that has not got them yet still builds).
    func products(storeId: String?, after: String?, limit: Int) async throws -> [Product]
    func stage(_ products: [Product], in stage: String) async throws
    func commitStaged(_ stage: String, pruning: Bool) async throws -> StagedCommit
    func discardStaged(_ stage: String) async throws
    func staged(_ stage: String, after: String, limit: Int) async throws -> [Product]
}

/// What committing a staged catalog did (`ProductRepository.commitStaged`).
public struct StagedCommit: Sendable, Hashable {
    /// The store the staged products belong to; nil when nothing was staged.
    public var storeId: String?
    /// Products inserted or replaced.
    public var stored: Int
    /// Products of the store that were not staged, deleted by a prune.
    public var deleted: Int

    public init(storeId: String?, stored: Int, deleted: Int) {
        self.storeId = storeId
        self.stored = stored
        self.deleted = deleted
    }
}

/// Listing the catalog, and replacing a store's catalog in one transaction: products are
/// staged in a named area (one per client connection), then committed at once, so readers
/// never see half a catalog and an import that stops changes nothing.
extension ProductRepository {
    /// Up to `limit` products in id order, after the id `after`, of `storeId` or of every store.
    public func products(storeId: String?, after: String?, limit: Int) async throws -> [Product] {
        throw ScanBridgeError.unavailable("this catalog store cannot list its products")
    }

    /// Adds products to the staging area `stage`, replacing a staged product of the same id.
    /// Nothing reaches the catalog until `commitStaged`.
    public func stage(_ products: [Product], in stage: String) async throws {
        throw ScanBridgeError.unavailable("this catalog store cannot stage products")
    }

    /// In one transaction: with `pruning`, deletes the products of the staged products' store
    /// that are not staged; stores every staged product; empties the area. Throws `conflict`
    /// when the staged products belong to more than one store, or a GTIN or SKU is taken
    /// (nothing changes then; the area is kept).
    public func commitStaged(_ stage: String, pruning: Bool) async throws -> StagedCommit {
        throw ScanBridgeError.unavailable("this catalog store cannot stage products")
    }

    /// Empties the staging area `stage`.
    public func discardStaged(_ stage: String) async throws {}

    /// Up to `limit` staged products of `stage` in id order, after the id `after`: for a
    /// catalog kept elsewhere (the shop's store) to commit them itself.
    public func staged(_ stage: String, after: String, limit: Int) async throws -> [Product] {
        throw ScanBridgeError.unavailable("this catalog store cannot stage products")
    }
}
