import Foundation
import GRDB
package import ScanBridgeCore
package import ScanBridgeModel

/// The catalog in the `product` table.
///
/// The scan lookup, `product(_:visibleTo:)`, runs synchronously on the caller's thread: one
/// cached statement fetching one row through the catalog's indexes, on a read-only connection of its own
/// (`PointReadConnections`). An async read spends far longer in the hops to GRDB's queues and
/// back than in the query, and no async path meets the lookup's latency budget
/// (docs/architecture.md, Design decisions). A WAL reader never waits for the writer, so the
/// caller's thread is held only for the query. Before it, the products found lately answer
/// from memory (`ProductLookupCache`), and a code no product has is known from memory too
/// (`CatalogKeyFilter`). Everything else goes through GRDB's async accesses.
package final class SQLiteProductRepository: ProductRepository {
    let database: StoreDatabase
    let cache = ProductLookupCache()
    let keys: CatalogKeyFilter
    /// Whether unknown codes are answered by `keys` (off only for the benchmark that weighs it).
    private let filtersKeys: Bool

    /// - Parameter keyChunkRows: rows per writer job of a key filter build (smaller only in
    ///   the tests that write while it runs).
    package init(database: StoreDatabase, filtersKeys: Bool = true, keyChunkRows: Int = 16_384) {
        self.database = database
        self.keys = CatalogKeyFilter(database: database, chunkRows: keyChunkRows)
        self.filtersKeys = filtersKeys
        keys.build()
    }

    package func product(id: String) async throws -> Product? {
        try await database.read("read product \(id)") { db in
            try ProductRecord.fetchFirst(
                db.cachedStatement(sql: "SELECT \(ProductRecord.columns) FROM product WHERE id = ?"), arguments: [id])
        }
    }

    package func product(_ key: ProductKey, visibleTo store: String?) async throws -> Product? {
        // An unknown code first: the filter's hash is cheaper than the cache's.
        guard !filtersKeys || keys.mightContain(key) else { return nil }
        let cacheKey = ProductLookupCache.Key(key: key, store: store)
        let (hit, generation) = cache.lookUp(cacheKey)
        if let hit { return hit }
        let product = try lookUp(key, visibleTo: store)
        cache.store(product, for: cacheKey, readAt: generation)
        return product
    }

    /// Returns once the catalog's keys are loaded, so unknown codes are answered from memory
    /// (for benchmarks and tests; lookups never wait for it).
    package func waitForKeys(timeout: Duration = .seconds(60)) async throws {
        let deadline = ContinuousClock.now + timeout
        while keys.builtBits == nil {
            guard ContinuousClock.now < deadline else {
                throw ScanBridgeError.unavailable("the catalog's keys were not loaded within \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Synchronous on purpose: see the type's documentation.
    private func lookUp(_ key: ProductKey, visibleTo store: String?) throws -> Product? {
        try database.pointRead("look up a product") { db in try Self.lookUp(key, visibleTo: store, db) }
    }

    /// The scan lookups' statements: each one statement (one read snapshot in autocommit
    /// mode), searching the unique keys and `product_barcode_store`, never scanning the
    /// catalog or sorting (`lookupSQL`). `?1` is the code, `?2` the daemon's store.
    static let byGTIN = lookupSQL(["gtin"], inStore: false)
    static let byGTINInStore = lookupSQL(["gtin"], inStore: true)
    static let byLabel = lookupSQL(["sku", "barcode"], inStore: false)
    static let byLabelInStore = lookupSQL(["sku", "barcode"], inStore: true)

    /// The first product, in the order `ProductRepository.product(_:visibleTo:)` documents,
    /// whose `columns` (tried in order: a label is a SKU before it is a barcode text) hold the code.
    ///
    /// With a store, the store's products come before those of no store, whatever column
    /// matched. Without, each column's products come in (storeId, rowid) order, which is the
    /// order of its index (its equal keys sorted by store, and a store's by rowid): the
    /// product of no store (`''` sorts first), then the stores by id; among a store's
    /// products sharing a barcode text, the oldest. Each choice is a subquery with LIMIT 1,
    /// and the outer LIMIT stops at the first that finds one.
    static func lookupSQL(_ columns: [String], inStore: Bool) -> String {
        let scopes: [String?] = inStore ? ["?2", "'\(ProductRecord.noStore)'"] : [nil]
        let choices = scopes.flatMap { scope in
            columns.map { column in
                if let scope {
                    "SELECT \(ProductRecord.columns) FROM product WHERE \(column) = ?1 AND storeId = \(scope) "
                        + "ORDER BY rowid LIMIT 1"
                } else {
                    "SELECT \(ProductRecord.columns) FROM product WHERE \(column) = ?1 ORDER BY storeId, rowid LIMIT 1"
                }
            }
        }
        guard choices.count > 1 else { return choices[0] }
        return choices.map { "SELECT * FROM (\($0))" }.joined(separator: " UNION ALL ") + " LIMIT 1"
    }

    static func lookUp(_ key: ProductKey, visibleTo store: String?, _ db: Database) throws -> Product? {
        let (sql, code) =
            switch key {
            case .gtin(let gtin): (store == nil ? byGTIN : byGTINInStore, gtin)
            case .skuOrBarcode(let text): (store == nil ? byLabel : byLabelInStore, text)
            }
        let arguments: StatementArguments = if let store { [code, store] } else { [code] }
        return try ProductRecord.fetchFirst(db.cachedStatement(sql: sql), arguments: arguments)
    }

    package func upsert(_ products: [Product]) async throws -> [Product] {
        guard !products.isEmpty else { return [] }
        let nowMs = StoreTime.milliseconds(Date())
        let checkpoint = database.checkpointDue(afterWriting: products.count)
        let gtins = products.map(\.gtin)
        defer { cache.invalidate() }
        try await database.write("save the products", checkpoint: checkpoint) { db in
            try self.store(products, gtins: gtins, nowMs: nowMs, db)
        }
        // Lookups search the log before the file: once an import pauses, empty it.
        if !checkpoint { database.checkpointInBackground() }
        return products
    }

    /// Stores products in the writer's transaction `db`, their keys in the key filter first.
    func store(_ products: [Product], gtins: [String?], nowMs: Int64, _ db: Database) throws {
        keys.add(products, gtins: gtins)
        try Self.upsert(products, gtins: gtins, nowMs: nowMs, db)
    }

    package func delete(id: String) async throws -> Bool {
        defer { cache.invalidate() }
        return try await database.write("delete product \(id)") { db in
            try db.cachedStatement(sql: "DELETE FROM product WHERE id = ?").execute(arguments: [id])
            return db.changesCount > 0
        }
    }

    package func count() async throws -> Int {
        try await database.read("count the products") { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM product") ?? 0
        }
    }
}
