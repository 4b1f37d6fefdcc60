import Foundation
import GRDB
import ScanBridgeCore
import ScanBridgeModel
import Testing

@testable import ScanBridgeStore

@Suite("Domain schema migration")
struct DomainMigrationTests {
    /// A database file exactly as the first release left it: only "v1-journal" applied.
    private func makeV1Database(at path: String, events: Int) throws {
        let pool = try DatabasePool(path: path)
        try StoreDatabase.migrator.migrate(pool, upTo: "v1-journal")
        // Recent events: the journal's age retention keeps them.
        let nowMs = Int64(Date().timeIntervalSince1970 * 1000)
        try pool.write { db in
            for seq in 1...events {
                let stored = Data(ScanEvent.json(seq: UInt64(seq), body: event(seq).jsonBody()))
                try db.execute(
                    sql: "INSERT INTO event (seq, id, timeMs, device, kind, json) VALUES (?, ?, ?, ?, 'barcode', ?)",
                    arguments: [seq, "event-\(seq)", nowMs - 1000 + Int64(seq), "mock:barcode-1", stored])
            }
        }
    }

    @Test("a v1 database migrates to v2-domain (and on) and keeps its events")
    func migratesV1() async throws {
        let file = try TemporaryDatabase()
        try makeV1Database(at: file.path, events: 25)

        let database = try StoreDatabase(path: file.path)
        #expect(
            try migrations(database) == [
                "v1-journal", "v2-domain", "v3-scanner-overrides", "v4-journal-without-kind-index", "v5-access-tokens",
                "v6-product-store-scope", "v7-shop-replica", "v8-money-minor-units", "v9-card-security",
            ])
        for table in ["product", "customer", "card", "repair_order", "repair_device"] {
            #expect(try tableExists(database, table), "table \(table)")
        }
        #expect(try rowCount(database, "event") == 25)
        // v4 drops v1's (kind, seq) index; the events stay, and a filter by kind still finds them.
        #expect(try await database.pool.read { try $0.indexes(on: "event") }.isEmpty)

        let journal = try SQLiteJournal(database: database, logger: quietLogger) { _ in }
        #expect(journal.latestSeq == 25)
        let kept = try await journal.events(after: 0, through: 25, filter: .all, limit: 100)
        #expect(kept.map(\.seq) == Array(1...25))
        #expect(try await journal.recent(limit: 3, kinds: [.barcode]).map(\.seq) == [23, 24, 25])
        #expect(try await journal.recent(limit: 3, kinds: [.nfc]).isEmpty)
        #expect(try kept.map { try decode($0).text } == (1...25).map { "item \($0)" })
        #expect(try await journal.append(event(26)).seq == 26)

        // The new tables work on the migrated file.
        let products = SQLiteProductRepository(database: database)
        _ = try await products.upsert([product("prod_1", barcode: "5901234123457")])
        #expect(try await products.product(.gtin("05901234123457"), visibleTo: "store_1")?.id == "prod_1")
    }

    @Test("opening a migrated database again changes nothing")
    func reopens() async throws {
        let file = try TemporaryDatabase()
        do {
            let database = try StoreDatabase(path: file.path)
            _ = try await SQLiteProductRepository(database: database).upsert([product("prod_1", sku: "A-1")])
        }
        let database = try StoreDatabase(path: file.path)
        #expect(try await SQLiteProductRepository(database: database).count() == 1)
        #expect(
            try migrations(database) == [
                "v1-journal", "v2-domain", "v3-scanner-overrides", "v4-journal-without-kind-index", "v5-access-tokens",
                "v6-product-store-scope", "v7-shop-replica", "v8-money-minor-units", "v9-card-security",
            ])
    }

    /// Products as the schema before "v6-product-store-scope" kept them, every one with a store.
    private func makeV5Database(at path: String) throws {
        let pool = try DatabasePool(path: path)
        try StoreDatabase.migrator.migrate(pool, upTo: "v5-access-tokens")
        try pool.write { db in
            let rows: [(id: String, store: String, sku: String?, barcode: String?, gtin: String?)] = [
                ("prod_z", "store_1", nil, "SHELF-1", nil),
                ("prod_crisps", "store_1", "CR-1", "5901234123457", "05901234123457"),
                ("prod_a", "store_1", nil, "SHELF-1", nil),
                ("prod_leeds", "leeds", "CR-1", "4006381333931", "04006381333931"),
            ]
            for row in rows {
                try db.execute(
                    sql: """
                        INSERT INTO product (id, storeId, name, priceMinor, currency, sku, category, barcode, gtin,
                            trackStock, quantity, lowStockThreshold, allowNegativeStock, parentId, variant,
                            createdAtMs, updatedAtMs)
                        VALUES (?, ?, ?, 350, 'GBP', ?, 'snacks', ?, ?, 1, 12, 3, 0, NULL, NULL, 1, 2)
                        """, arguments: [row.id, row.store, "Product \(row.id)", row.sku, row.barcode, row.gtin])
            }
        }
    }

    @Test("products of an older database keep their stores, and a daemon with no store finds them all")
    func migratesStoredProducts() async throws {
        let file = try TemporaryDatabase()
        try makeV5Database(at: file.path)

        let database = try StoreDatabase(path: file.path)
        #expect(try migrations(database).contains("v6-product-store-scope"))
        let products = SQLiteProductRepository(database: database)
        #expect(try await products.count() == 4)
        let crisps = try await products.product(id: "prod_crisps")
        #expect(crisps?.storeId == "store_1" && crisps?.sku == "CR-1" && crisps?.price.minorUnits == 350)
        let times = try fetchRow(database, "SELECT createdAtMs, updatedAtMs FROM product WHERE id = 'prod_crisps'")
        #expect(times?["createdAtMs"] == 1 as Int64 && times?["updatedAtMs"] == 2 as Int64)

        // The shop's own daemon (store_1) still finds its products; one with no store finds all.
        #expect(try await products.product(.gtin("05901234123457"), visibleTo: "store_1")?.id == "prod_crisps")
        #expect(try await products.product(.gtin("05901234123457"), visibleTo: nil)?.id == "prod_crisps")
        #expect(try await products.product(.gtin("04006381333931"), visibleTo: nil)?.id == "prod_leeds")
        #expect(try await products.product(.gtin("04006381333931"), visibleTo: "store_1") == nil)
        #expect(try await products.product(.skuOrBarcode("CR-1"), visibleTo: nil)?.id == "prod_leeds", "leeds < store_1")
        // Rowids kept: the oldest of the products sharing a label text is still the one found.
        #expect(try await products.product(.skuOrBarcode("SHELF-1"), visibleTo: nil)?.id == "prod_z")
        #expect(try await products.product(.skuOrBarcode("SHELF-1"), visibleTo: "store_1")?.id == "prod_z")

        // The unique keys still hold per store, and the lookups' indexes are there.
        await #expect(throws: ScanBridgeError.self) {
            try await products.upsert([product("prod_b", store: "store_1", barcode: "5901234123457")])
        }
        _ = try await products.upsert([product("prod_none", store: nil, barcode: "5901234123457", sku: "CR-1")])
        #expect(try await products.product(.gtin("05901234123457"), visibleTo: nil)?.id == "prod_none")
        #expect(try await products.product(.gtin("05901234123457"), visibleTo: "store_1")?.id == "prod_crisps")
        let indexes = try await database.pool.read { db in
            try db.indexes(on: "product").map(\.columns).filter { $0 != ["id"] }
        }
        #expect(Set(indexes) == [["gtin", "storeId"], ["sku", "storeId"], ["barcode", "storeId"]], "\(indexes)")
    }

    @Test("the schema itself refuses what the domain forbids")
    func constraints() throws {
        let file = try TemporaryDatabase()
        let database = try StoreDatabase(path: file.path)
        func refuses(_ sql: String) -> Bool {
            (try? database.pool.write { try $0.execute(sql: sql) }) == nil
        }
        let columns =
            "id, storeId, name, priceMinor, currency, trackStock, quantity, lowStockThreshold, allowNegativeStock, createdAtMs, updatedAtMs"
        #expect(
            !refuses("INSERT INTO product (\(columns), gtin, sku) VALUES ('a', 's', 'A', 1, 'GBP', 0, 0, 0, 0, 0, 0, '1', 'X')"))
        #expect(refuses("INSERT INTO product (\(columns), gtin) VALUES ('b', 's', 'B', 1, 'GBP', 0, 0, 0, 0, 0, 0, '1')"))
        #expect(refuses("INSERT INTO product (\(columns), sku) VALUES ('b', 's', 'B', 1, 'GBP', 0, 0, 0, 0, 0, 0, 'X')"))
        #expect(
            !refuses("INSERT INTO product (\(columns), gtin, sku) VALUES ('b', 't', 'B', 1, 'GBP', 0, 0, 0, 0, 0, 0, '1', 'X')"))
        // '' is no store: one store for the unique keys.
        #expect(
            !refuses("INSERT INTO product (\(columns), gtin, sku) VALUES ('n1', '', 'N', 1, 'GBP', 0, 0, 0, 0, 0, 0, '1', 'X')"))
        #expect(refuses("INSERT INTO product (\(columns), gtin) VALUES ('n2', '', 'N', 1, 'GBP', 0, 0, 0, 0, 0, 0, '1')"))
        #expect(refuses("INSERT INTO product (\(columns), sku) VALUES ('n2', '', 'N', 1, 'GBP', 0, 0, 0, 0, 0, 0, 'X')"))
        #expect(refuses("INSERT INTO product (\(columns)) VALUES ('c', 's', 'C', -1, 'GBP', 0, 0, 0, 0, 0, 0)"))
        #expect(refuses("INSERT INTO product (\(columns)) VALUES ('c', 's', 'C', 1, 'GB', 0, 0, 0, 0, 0, 0)"))
        #expect(refuses("INSERT INTO product (\(columns)) VALUES ('c', 's', 'C', 1, 'GBP', 0, 0, -1, 0, 0, 0)"))
        #expect(refuses("INSERT INTO card (uid, walletAddress, status, createdAtMs) VALUES ('04A1', 'nobody', 'active', 0)"))
        #expect(!refuses("INSERT INTO customer (walletAddress, createdAtMs) VALUES ('w1', 0)"))
        #expect(refuses("INSERT INTO card (uid, walletAddress, status, createdAtMs) VALUES ('04A1', 'w1', 'lost', 0)"))
        #expect(!refuses("INSERT INTO repair_order (id, reference, status, createdAtMs) VALUES ('o1', 'RM-1', 'open', 0)"))
        #expect(refuses("INSERT INTO repair_order (id, reference, status, createdAtMs) VALUES ('o2', 'rm-1', 'open', 0)"))
        #expect(!refuses("INSERT INTO repair_device (id, orderId, position, status) VALUES ('d1', 'o1', 0, 'received')"))
        #expect(refuses("INSERT INTO repair_device (id, orderId, position, status) VALUES ('d2', 'o9', 0, 'received')"))
        #expect(!refuses("DELETE FROM repair_order WHERE id = 'o1'"))
        #expect(try rowCount(database, "repair_device") == 0, "devices go with their order")
    }
}
