import Foundation
import GRDB
package import ScanBridgeCore
package import ScanBridgeModel

/// Listing the catalog, and replacing a store's catalog at once.
///
/// Staged products wait in `temp.product_stage`, a temporary table of the writer connection:
/// only writes touch it, no reader sees it, and it vanishes with the daemon, so a staging
/// area that a crash left behind cannot outlive the process. A commit is one write
/// transaction (WAL readers keep their snapshot of the old catalog until it ends).
extension SQLiteProductRepository {
    package func products(storeId: String?, after: String?, limit: Int) async throws -> [Product] {
        try await database.read("list the products") { db in
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT \(ProductRecord.columns) FROM product
                    WHERE (?1 IS NULL OR storeId = ?1) AND (?2 IS NULL OR id > ?2) ORDER BY id LIMIT ?3
                    """,
                arguments: [storeId, after, limit])
            var products: [Product] = []
            while let row = try rows.next() { products.append(Self.product(row)) }
            return products
        }
    }

    package func stage(_ products: [Product], in stage: String) async throws {
        guard !products.isEmpty else { return }
        try await database.write("stage the products") { db in
            try Self.createStage(db)
            let statement = try db.cachedStatement(sql: Self.stageSQL)
            for product in products {
                var arguments: StatementArguments = [stage]
                arguments += ProductRecord(product).upsertArguments(gtin: product.gtin, nowMs: 0)
                statement.setUncheckedArguments(arguments)
                try statement.execute()
            }
        }
    }

    package func commitStaged(_ stage: String, pruning: Bool) async throws -> StagedCommit {
        defer { cache.invalidate() }
        let nowMs = StoreTime.milliseconds(Date())
        let outcome = try await database.write("replace the catalog", checkpoint: true) { db in
            try Self.createStage(db)
            let stores = try String.fetchAll(
                db, sql: "SELECT DISTINCT storeId FROM temp.product_stage WHERE stage = ? LIMIT 2", arguments: [stage])
            guard stores.count <= 1 else {
                throw ScanBridgeError.conflict(
                    "the staged products belong to more than one store (\(stores.joined(separator: ", ")), …); "
                        + "a catalog is replaced one store at a time")
            }
            guard let storeId = stores.first else { return StagedCommit(storeId: nil, stored: 0, deleted: 0) }
            var deleted = 0
            if pruning {
                try db.execute(
                    sql: """
                        DELETE FROM product WHERE storeId = ?
                        AND id NOT IN (SELECT id FROM temp.product_stage WHERE stage = ?)
                        """,
                    arguments: [storeId, stage])
                deleted = db.changesCount
            }
            let stored = try self.storeStaged(stage, nowMs: nowMs, db)
            try db.execute(sql: "DELETE FROM temp.product_stage WHERE stage = ?", arguments: [stage])
            return StagedCommit(storeId: storeId == ProductRecord.noStore ? nil : storeId, stored: stored, deleted: deleted)
        }
        return outcome
    }

    package func discardStaged(_ stage: String) async throws {
        try await database.write("discard the staged products") { db in
            try Self.createStage(db)
            try db.execute(sql: "DELETE FROM temp.product_stage WHERE stage = ?", arguments: [stage])
        }
    }

    package func staged(_ stage: String, after: String, limit: Int) async throws -> [Product] {
        // The staging table is the writer connection's: read there.
        try await database.write("read the staged products") { db in
            try Self.createStage(db)
            return try Self.stagedPage(stage, after: after, limit: limit, db)
        }
    }

    private static func stagedPage(_ stage: String, after: String, limit: Int, _ db: Database) throws -> [Product] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT \(ProductRecord.columns) FROM temp.product_stage
                WHERE stage = ? AND id > ? ORDER BY id LIMIT ?
                """,
            arguments: [stage, after, limit]
        ).map(Self.product)
    }

    /// Stores the staged products a page at a time, so memory holds one page however many there are.
    private func storeStaged(_ stage: String, nowMs: Int64, _ db: Database) throws -> Int {
        var stored = 0
        var after = ""
        while true {
            let products = try Self.stagedPage(stage, after: after, limit: Self.commitPageRows, db)
            guard let last = products.last else { return stored }
            do {
                try store(products, gtins: products.map(\.gtin), nowMs: nowMs, db)
            } catch var error as ScanBridgeError {
                // The batch's index means nothing to the client (the message names the
                // products); the field it clashes on does: `[3].barcode` is `barcode`.
                error.field = error.field.flatMap { path in
                    path.firstIndex(of: ".").map { String(path[path.index(after: $0)...]) }
                }
                throw error
            }
            stored += products.count
            after = last.id
        }
    }

    private static let commitPageRows = 4096

    /// The staging table, made on the writer connection the first time it is needed.
    private static func createStage(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TEMP TABLE IF NOT EXISTS product_stage (
                    stage TEXT NOT NULL, id TEXT NOT NULL, storeId TEXT, name TEXT NOT NULL,
                    priceMinor INTEGER NOT NULL, currency TEXT NOT NULL, sku TEXT, category TEXT, barcode TEXT,
                    gtin TEXT, trackStock INTEGER NOT NULL, quantity INTEGER NOT NULL,
                    lowStockThreshold INTEGER NOT NULL, allowNegativeStock INTEGER NOT NULL, parentId TEXT,
                    variant TEXT, createdAtMs INTEGER NOT NULL, updatedAtMs INTEGER NOT NULL,
                    PRIMARY KEY (stage, id)
                ) WITHOUT ROWID
                """)
    }

    /// `ProductRecord.upsertSQL`'s columns, with the area first; a product staged again replaces the first.
    private static let stageSQL = """
        INSERT OR REPLACE INTO temp.product_stage (stage, id, storeId, name, priceMinor, currency, sku, category,
        barcode, gtin, trackStock, quantity, lowStockThreshold, allowNegativeStock, parentId, variant, createdAtMs,
        updatedAtMs)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// A row selecting `ProductRecord.columns`.
    private static func product(_ row: Row) -> Product {
        let store: String = row[1]
        return Product(
            id: row[0], storeId: store == ProductRecord.noStore ? nil : store, name: row[2],
            price: Money(minorUnits: row[3], currency: row[4]), sku: row[5],
            category: row[6], barcode: row[7], trackStock: row[8], quantity: row[9], lowStockThreshold: row[10],
            allowNegativeStock: row[11], parentId: row[12], variant: row[13])
    }
}
