import Foundation

/// The benchmark's catalog (`CatalogScenarios.barcode`) written straight into the shop's
/// store in SQL, as a back office's bulk load would: one `INSERT … SELECT generate_series`,
/// whose triggers log every row in `scanbridge_changes` for the counters to follow. The rows
/// are the CSV's (`CatalogScenarios.writeCatalog`), with the ids an import gives them.
enum ShopCatalog {
    /// The id `scanbridge products import` gives catalog item `index`: `prod_` and its GTIN-14.
    static func id(_ index: Int) -> String { "prod_0" + CatalogScenarios.barcode(index) }

    /// `CatalogScenarios.barcode` in SQL, of the bigint expression `index`: prefix 50, the
    /// index in ten digits, and the EAN-13 check digit (weights 3 and 1 from the right, and
    /// 5 × 1 for the prefix's first digit).
    static func barcodeSQL(_ index: String) -> String {
        let weighted = (0..<10).map { power in
            "\(power % 2 == 0 ? 3 : 1) * ((\(index)) / \(Int(pow(10, Double(power)))) % 10)"
        }
        let sum = "5 + " + weighted.joined(separator: " + ")
        return "('50' || lpad((\(index))::text, 10, '0') || ((10 - (\(sum)) % 10) % 10)::text)"
    }

    static func idSQL(_ index: String) -> String { "('prod_0' || \(barcodeSQL(index)))" }

    /// Inserts items `0..<count` in one statement, then vacuums and analyzes the catalog and
    /// the change log, as autovacuum would have long before a counter joins a shop; returns
    /// the seconds the insert took. Fails unless a sample of the barcodes is the benchmark's.
    static func insert(count: Int, into server: ShopServer) async throws -> Double {
        let started = Nanos.now()
        try await server.sql(
            """
            INSERT INTO scanbridge_products (id, store_id, name, price_minor, currency, sku, category, barcode, gtin,
                track_stock, quantity, low_stock_threshold, allow_negative_stock)
            SELECT \(idSQL("i")), '', 'Item ' || i, (i % 5000 + 1) * 100 + (i % 10) * 10 + 9, 'GBP', 'SKU-' || i,
                'Category ' || (i % 40), \(barcodeSQL("i")), '0' || \(barcodeSQL("i")), true, i % 100, 5, false
            FROM generate_series(0, \(count - 1)::bigint) AS i ORDER BY i
            """)
        let seconds = Double(Nanos.now() - started) / 1e9
        for table in ["scanbridge_products", "scanbridge_changes"] { try await server.sql("VACUUM ANALYZE \(table)") }
        let samples = [0, 1, 9, count / 3, count - 1]
        let found = try await server.sql(
            "SELECT barcode FROM scanbridge_products WHERE id IN (\(samples.map { "'\(id($0))'" }.joined(separator: ", "))) "
                + "ORDER BY barcode")
        let expected = samples.map(CatalogScenarios.barcode).sorted().joined(separator: "\n")
        guard found == expected else {
            throw BenchmarkFailure(
                description: "the SQL catalog's barcodes are not the benchmark's: \(found) against \(expected)")
        }
        return seconds
    }

    /// The product of the change log's last change: its id and barcode.
    static func lastWritten(on server: ShopServer) async throws -> (id: String, barcode: String) {
        let row = try await server.sql(
            """
            SELECT p.id, p.barcode FROM scanbridge_products p
            WHERE p.id = (SELECT key FROM scanbridge_changes WHERE table_name = 'scanbridge_products' ORDER BY id DESC LIMIT 1)
            """
        ).split(separator: "|").map(String.init)
        guard row.count == 2 else { throw BenchmarkFailure(description: "the change log names no product last") }
        return (row[0], row[1])
    }

    /// The newest change's id, 0 when there is none.
    static func lastChange(on server: ShopServer) async throws -> Int {
        Int(try await server.sql("SELECT coalesce(max(id), 0) FROM scanbridge_changes")) ?? 0
    }

    /// The price, in pence, the catch-up's last change gives item 0: one no product has.
    static let sentinelMinor = 99_999_999
    static let sentinelPrice = "999999.99"

    /// `count` changes, as the back office makes them in SQL: `count - 1` products spread
    /// over the catalog each a penny dearer (one statement), then item 0 at
    /// `sentinelPrice` (another), so that a counter holding that price holds them all.
    static func changePrices(count: Int, catalogSize: Int, on server: ShopServer) async throws {
        let before = try await lastChange(on: server)
        // 97 is prime and divides no catalog size the benchmark uses: every g gives another item, none item 0.
        try await server.sql(
            """
            UPDATE scanbridge_products SET price_minor = price_minor + 1, updated_at = now()
            WHERE id IN (SELECT \(idSQL("(g * 97) % \(catalogSize)")) FROM generate_series(1, \(count - 1)::bigint) AS g)
            """)
        try await server.sql(
            "UPDATE scanbridge_products SET price_minor = \(sentinelMinor), updated_at = now() WHERE id = '\(id(0))'")
        let made = try await lastChange(on: server) - before
        guard made == count else { throw BenchmarkFailure(description: "made \(made) changes, not \(count)") }
    }
}
