import Foundation
import Logging
import PostgresNIO
import ScanBridgeCore
import ScanBridgeModel

/// The shop's catalog in PostgreSQL (`scanbridge_products`): the writes every counter makes
/// there, in the transaction its caller holds (`SharedWrites`), and the reads its replica is
/// kept from. Rows travel as `RecordsetJSON`.
struct SharedProducts: Sendable {
    let logger: Logger

    static let columns = """
        id, store_id, name, price_minor, currency, sku, category, barcode, track_stock, quantity, \
        low_stock_threshold, allow_negative_stock, parent_id, variant
        """

    /// `columns`, each prefixed with `table.`.
    static func prefixed(_ table: String) -> String {
        columns.split(separator: ",").map { "\(table).\($0.drop { $0 == " " })" }.joined(separator: ", ")
    }

    /// The columns of a page's JSON (`json(_:)`), as `jsonb_to_recordset` types them.
    static let recordType = """
        id text, store_id text, name text, price_minor bigint, currency text, sku text, category text, barcode text, \
        track_stock boolean, quantity bigint, low_stock_threshold bigint, allow_negative_stock boolean, parent_id text, \
        variant text, gtin text
        """

    /// `columns` and `gtin`.
    typealias Row = (
        String, String, String, Int64, String, String?, String?, String?, Bool, Int64, Int64, Bool, String?, String?,
        String?
    )

    /// Inserts the products, or replaces those with their ids (the last of a page wins, as
    /// in a counter's own catalog); `created_at` stays the first one.
    func upsert(_ products: [Product], on connection: PostgresConnection) async throws {
        let page = products.lastOfEach(\.id)
        guard !page.isEmpty else { return }
        try await connection.query(
            """
            INSERT INTO scanbridge_products (\(unescaped: Self.columns), gtin, created_at)
            SELECT \(unescaped: Self.columns), gtin, statement_timestamp()
            FROM jsonb_to_recordset(\(try Self.json(page))::jsonb) AS p(\(unescaped: Self.recordType))
            \(unescaped: Self.replacing)
            """, logger: logger)
    }

    /// What an insert does with a product the shop has under its id: replaces it, unless it
    /// is already as given, so that a nightly re-import of the same catalog logs no change
    /// and no counter copies it again.
    static let replacing = """
        ON CONFLICT (id) DO UPDATE SET
            store_id = excluded.store_id, name = excluded.name, price_minor = excluded.price_minor,
            currency = excluded.currency, sku = excluded.sku, category = excluded.category,
            barcode = excluded.barcode, gtin = excluded.gtin, track_stock = excluded.track_stock,
            quantity = excluded.quantity, low_stock_threshold = excluded.low_stock_threshold,
            allow_negative_stock = excluded.allow_negative_stock, parent_id = excluded.parent_id,
            variant = excluded.variant, updated_at = now()
        WHERE (\(prefixed("scanbridge_products")), scanbridge_products.gtin)
            IS DISTINCT FROM (\(prefixed("excluded")), excluded.gtin)
        """

    func delete(id: String, on connection: PostgresConnection) async throws -> Bool {
        try await !connection.query("DELETE FROM scanbridge_products WHERE id = \(id) RETURNING id", logger: logger)
            .collect().isEmpty
    }

    /// Makes `scanbridge_staged` for this transaction; one left over would fail it, rather
    /// than merge two imports.
    func createStaging(on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            CREATE TEMPORARY TABLE scanbridge_staged
            (LIKE scanbridge_products INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING INDEXES) ON COMMIT DROP
            """, logger: logger)
    }

    /// Fills `scanbridge_staged`, a temporary table of this transaction shaped as the
    /// catalog's (its keys included: two staged products with one GTIN fail here), with a
    /// page of products.
    func stage(_ products: [Product], on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            INSERT INTO scanbridge_staged (\(unescaped: Self.columns), gtin)
            SELECT \(unescaped: Self.columns), gtin
            FROM jsonb_to_recordset(\(try Self.json(products))::jsonb) AS p(\(unescaped: Self.recordType))
            """, logger: logger)
    }

    /// Replaces the staged products' store's catalog with `scanbridge_staged`: with
    /// `pruning`, its products not staged go first (so a staged product may take a key one
    /// of them held), then every staged product is stored. Returns how many were deleted;
    /// nil when nothing was staged.
    func commitStaged(pruning: Bool, on connection: PostgresConnection) async throws -> (store: String, deleted: Int)? {
        let stores = try await connection.query(
            "SELECT DISTINCT store_id FROM scanbridge_staged LIMIT 2", logger: logger
        ).decode(String.self).collectAll()
        guard let store = stores.first else { return nil }
        guard stores.count == 1 else {
            throw ScanBridgeError.conflict(
                "the staged products belong to more than one store (\(stores.map { $0.isEmpty ? "none" : $0 }.joined(separator: ", ")), …); "
                    + "a catalog is replaced one store at a time")
        }
        var deleted = 0
        if pruning {
            for try await count in try await connection.query(
                """
                WITH gone AS (
                    DELETE FROM scanbridge_products p WHERE p.store_id = \(store)
                    AND NOT EXISTS (SELECT 1 FROM scanbridge_staged s WHERE s.id = p.id) RETURNING 1)
                SELECT count(*) FROM gone
                """, logger: logger
            ).decode(Int.self) {
                deleted = count
            }
        }
        try await connection.query(
            """
            INSERT INTO scanbridge_products (\(unescaped: Self.columns), gtin, created_at)
            SELECT \(unescaped: Self.columns), gtin, statement_timestamp() FROM scanbridge_staged ORDER BY id
            \(unescaped: Self.replacing)
            """, logger: logger)
        return (store, deleted)
    }

    /// The products of these ids that exist, oldest first (so every counter stores them in
    /// one order, which decides among products sharing a barcode text), with their `gtin`.
    /// A product's `created_at` is when its statement ran, after the writer's turn began,
    /// so this order is the log's. A product no client could have given here is refused,
    /// the longest of them before it is read (`ShopRowBounds`).
    func products(ids: [String], on connection: PostgresConnection) async throws -> ShopRows<ShopProduct> {
        let bounds = ShopRowBounds.products
        var read = ShopRows<ShopProduct>()
        var seen: Set<String> = []
        for try await row in try await connection.query(
            """
            SELECT \(unescaped: Self.columns), gtin FROM scanbridge_products
            WHERE id = ANY(\(ids)) AND \(unescaped: bounds.fits) ORDER BY created_at, id
            """, logger: logger
        ).decode(Row.self) {
            seen.insert(row.0)
            let product = Product(
                id: row.0, storeId: row.1.isEmpty ? nil : row.1, name: row.2,
                price: Money(minorUnits: row.3, currency: row.4), sku: row.5, category: row.6, barcode: row.7,
                trackStock: row.8, quantity: row.9, lowStockThreshold: row.10, allowNegativeStock: row.11,
                parentId: row.12, variant: row.13)
            if let problem = product.inputProblem {
                read.refused.append(RefusedRow(table: bounds.table, key: row.0, reason: problem))
            } else {
                read.rows.append(ShopProduct(product: product, gtin: row.14))
            }
        }
        read.refused += try await bounds.refused(
            among: Set(ids).subtracting(seen), on: connection, logger: logger)
        return read
    }

    /// The page as `jsonb_to_recordset` reads it.
    static func json(_ products: [Product]) throws -> String {
        let rows = products.map { product in
            JSONRow(
                id: product.id, storeId: product.storeId ?? "", name: product.name,
                priceMinor: product.price.minorUnits, currency: product.price.currency, sku: product.sku,
                category: product.category, barcode: product.barcode, trackStock: product.trackStock,
                quantity: product.quantity, lowStockThreshold: product.lowStockThreshold,
                allowNegativeStock: product.allowNegativeStock, parentId: product.parentId, variant: product.variant,
                gtin: product.gtin)
        }
        return try RecordsetJSON.encode(rows)
    }

    private struct JSONRow: Encodable {
        let id, storeId, name: String
        let priceMinor: Int64
        let currency: String
        let sku, category, barcode: String?
        let trackStock: Bool
        let quantity, lowStockThreshold: Int64
        let allowNegativeStock: Bool
        let parentId, variant, gtin: String?
    }
}

extension SharedProducts {
    /// Inserts the products the shop does not have under their id, keeping the shop's
    /// others; returns how many went in. A GTIN or SKU another product of the store holds
    /// fails the statement, with the key in the server's detail.
    func insertKeepingTheShops(_ products: [Product], on connection: PostgresConnection) async throws -> Int {
        guard !products.isEmpty else { return 0 }
        let json = try Self.json(products)
        return try await connection.query(
            """
            INSERT INTO scanbridge_products (\(unescaped: Self.columns), gtin)
            SELECT \(unescaped: Self.columns), gtin FROM jsonb_to_recordset(\(json)::jsonb) AS p(\(unescaped: Self.recordType))
            ON CONFLICT (id) DO NOTHING RETURNING id
            """, logger: logger
        ).collect().count
    }
}
