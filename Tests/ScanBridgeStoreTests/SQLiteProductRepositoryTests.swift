import Foundation
import GRDB
import ScanBridgeCore
import ScanBridgeModel
import Testing

@testable import ScanBridgeStore

@Suite("SQLiteProductRepository")
final class SQLiteProductRepositoryTests {
    let file: TemporaryDatabase
    let database: StoreDatabase
    let products: SQLiteProductRepository

    init() throws {
        file = try TemporaryDatabase()
        database = try StoreDatabase(path: file.path)
        products = SQLiteProductRepository(database: database)
    }

    @Test("a product is found by id, by GTIN in any form, by SKU and by label text")
    func lookups() async throws {
        let crisps = product("prod_crisps", barcode: "5901234123457", sku: "CR-1")
        let cola = product("prod_cola", barcode: "036000291452")  // UPC-A
        let cable = product("prod_cable", barcode: "CBL-USB-C-2M")  // Code 128 label, no SKU
        #expect(try await products.upsert([crisps, cola, cable]) == [crisps, cola, cable])

        #expect(try await products.product(id: "prod_crisps") == crisps)
        #expect(try await products.product(id: "prod_none") == nil)
        #expect(try await products.product(.gtin("05901234123457"), visibleTo: "store_1") == crisps)
        #expect(try await products.product(.gtin("00036000291452"), visibleTo: "store_1") == cola)
        #expect(try await products.product(.skuOrBarcode("CR-1"), visibleTo: "store_1") == crisps)
        #expect(try await products.product(.skuOrBarcode("CBL-USB-C-2M"), visibleTo: "store_1") == cable)
        #expect(try await products.product(.gtin("04006381333931"), visibleTo: "store_1") == nil)
        #expect(try await products.product(.skuOrBarcode("cr-1"), visibleTo: "store_1") == nil, "SKUs match exactly")
        #expect(try await products.count() == 3)
    }

    @Test("every field survives the round trip, money in minor units")
    func roundTrip() async throws {
        let variant = Product(
            id: "prod_tee_m", storeId: "store_1", name: "T-shirt (M)", price: Money(minorUnits: 1_999, currency: "EUR"),
            sku: "TEE-M", category: "clothing", barcode: "4006381333931", trackStock: true, quantity: -2,
            lowStockThreshold: 5, allowNegativeStock: true, parentId: "prod_tee", variant: "M")
        let bare = Product(id: "prod_bare", storeId: "store_1", name: "Bare", price: Money(minorUnits: 0, currency: "GBP"))
        _ = try await products.upsert([variant, bare])
        #expect(try await products.product(id: "prod_tee_m") == variant)
        #expect(try await products.product(.skuOrBarcode("TEE-M"), visibleTo: "store_1") == variant)
        #expect(try await products.product(id: "prod_bare") == bare)
        let stored = try fetchRow(database, "SELECT priceMinor, currency, gtin FROM product WHERE id = 'prod_tee_m'")
        #expect(stored?["priceMinor"] == 1_999 as Int64)
        #expect(stored?["currency"] == "EUR")
        #expect(stored?["gtin"] == "04006381333931")
    }

    @Test("a SKU wins over another product's label text")
    func skuBeforeBarcode() async throws {
        let labelled = product("prod_label", barcode: "X-100")
        let bySKU = product("prod_sku", sku: "X-100")
        _ = try await products.upsert([labelled, bySKU])
        #expect(try await products.product(.skuOrBarcode("X-100"), visibleTo: "store_1") == bySKU)
    }

    @Test("of several products with the same label text, the oldest is found")
    func sameLabel() async throws {
        _ = try await products.upsert([product("prod_z", barcode: "SHELF-1")])
        _ = try await products.upsert([product("prod_a", barcode: "SHELF-1")])
        #expect(try await products.product(.skuOrBarcode("SHELF-1"), visibleTo: "store_1")?.id == "prod_z")
    }

    @Test("lookups see only the store asked for")
    func storeScoping() async throws {
        let london = product("prod_ldn", store: "london", barcode: "5901234123457", sku: "CR-1", pence: 350)
        let leeds = product("prod_lds", store: "leeds", barcode: "5901234123457", sku: "CR-1", pence: 300)
        _ = try await products.upsert([london, leeds])
        #expect(try await products.product(.gtin("05901234123457"), visibleTo: "london") == london)
        #expect(try await products.product(.gtin("05901234123457"), visibleTo: "leeds") == leeds)
        #expect(try await products.product(.skuOrBarcode("CR-1"), visibleTo: "leeds") == leeds)
        #expect(try await products.product(.gtin("05901234123457"), visibleTo: "york") == nil)
        #expect(try await products.product(.skuOrBarcode("CR-1"), visibleTo: "york") == nil)
    }

    @Test("a GTIN held by another product of the store refuses the whole batch, naming both")
    func gtinConflict() async throws {
        _ = try await products.upsert([product("prod_7", barcode: "5901234123457")])
        let batch = [
            product("prod_a", sku: "A"), product("prod_b", barcode: "4006381333931"),
            product("prod_c", barcode: "05901234123457"),  // the same GTIN written as a GTIN-14
        ]
        let error = await #expect(throws: ScanBridgeError.self) { try await products.upsert(batch) }
        #expect(error?.code == .conflict)
        #expect(error?.field == "[2].barcode")
        #expect(
            error?.message == "GTIN 05901234123457 already belongs to product prod_7 in store store_1; "
                + "delete prod_7 or give this product the id prod_7")
        #expect(try await products.count() == 1, "nothing of the batch is stored")
        #expect(try await products.product(id: "prod_a") == nil)
    }

    @Test("a GTIN given twice in one batch names both products and their indexes")
    func gtinTwiceInBatch() async throws {
        let batch = [product("prod_a", barcode: "5901234123457"), product("prod_b", barcode: "5901234123457")]
        let error = await #expect(throws: ScanBridgeError.self) { try await products.upsert(batch) }
        #expect(error?.code == .conflict)
        #expect(error?.field == "[1].barcode")
        #expect(error?.message.contains("product prod_a ([0]) and product prod_b ([1]) of this batch") == true)
        #expect(error?.message.contains("(barcode 5901234123457)") == true)
        #expect(try await products.count() == 0)
    }

    @Test("a SKU held by another product of the store refuses the whole batch")
    func skuConflict() async throws {
        _ = try await products.upsert([product("prod_9", sku: "CR-1")])
        let batch = [product("prod_a", sku: "CR-2"), product("prod_b", sku: "CR-1"), product("prod_c", sku: "CR-3")]
        let error = await #expect(throws: ScanBridgeError.self) { try await products.upsert(batch) }
        #expect(error?.code == .conflict)
        #expect(error?.field == "[1].sku")
        #expect(
            error?.message == "SKU CR-1 already belongs to product prod_9 in store store_1; "
                + "delete prod_9 or give this product the id prod_9")
        #expect(try await products.count() == 1)
        // The same SKU in another store is no conflict.
        _ = try await products.upsert([product("prod_b", store: "store_2", sku: "CR-1")])
        #expect(try await products.count() == 2)
    }

    @Test("a GTIN may move to another product within one batch once released")
    func gtinMoves() async throws {
        _ = try await products.upsert([product("prod_old", barcode: "5901234123457")])
        _ = try await products.upsert([
            product("prod_old", barcode: "4006381333931"), product("prod_new", barcode: "5901234123457"),
        ])
        #expect(try await products.product(.gtin("05901234123457"), visibleTo: "store_1")?.id == "prod_new")
        #expect(try await products.product(.gtin("04006381333931"), visibleTo: "store_1")?.id == "prod_old")
    }

    @Test("upserting the same products again updates them in place")
    func idempotent() async throws {
        let batch = [product("prod_1", barcode: "5901234123457", sku: "S1"), product("prod_2", sku: "S2")]
        _ = try await products.upsert(batch)
        let createdAt: Int64? = try fetchRow(database, "SELECT createdAtMs FROM product WHERE id = 'prod_1'")?[0]
        try await Task.sleep(for: .milliseconds(5))  // past the millisecond clock's tick: updatedAtMs must differ
        _ = try await products.upsert(batch)
        var repriced = batch[0]
        repriced.price.minorUnits = 999
        _ = try await products.upsert([repriced])
        #expect(try await products.count() == 2)
        #expect(try rowCount(database, "product") == 2)
        #expect(try await products.product(.gtin("05901234123457"), visibleTo: "store_1")?.price.minorUnits == 999)
        let times = try fetchRow(database, "SELECT createdAtMs, updatedAtMs FROM product WHERE id = 'prod_1'")
        #expect(times?["createdAtMs"] == createdAt, "created once")
        #expect((times?["updatedAtMs"] as Int64?) ?? 0 > createdAt ?? .max)
    }

    @Test("a lookup served from memory never outlives a write: found, missing, repriced, deleted")
    func cachedLookupsFollowWrites() async throws {
        let key = ProductKey.gtin("05901234123457")
        #expect(try await products.product(key, visibleTo: "store_1") == nil)
        #expect(try await products.product(key, visibleTo: "store_1") == nil, "a cached miss")
        _ = try await products.upsert([product("prod_1", barcode: "5901234123457")])
        #expect(try await products.product(key, visibleTo: "store_1")?.price.minorUnits == 350)
        #expect(try await products.product(key, visibleTo: "store_1")?.price.minorUnits == 350, "a cached hit")
        _ = try await products.upsert([product("prod_1", barcode: "5901234123457", pence: 420)])
        #expect(try await products.product(key, visibleTo: "store_1")?.price.minorUnits == 420)
        _ = try await products.delete(id: "prod_1")
        #expect(try await products.product(key, visibleTo: "store_1") == nil)
        // Writes racing lookups: every lookup after the last write sees it.
        let products = self.products
        try await withThrowingTaskGroup(of: Void.self) { group in
            for pence in Int64(1)...50 {
                group.addTask { _ = try await products.upsert([product("prod_1", barcode: "5901234123457", pence: pence)]) }
                group.addTask { _ = try await products.product(key, visibleTo: "store_1") }
            }
            try await group.waitForAll()
        }
        let stored = try await products.product(id: "prod_1")
        #expect(try await products.product(key, visibleTo: "store_1") == stored)
    }

    @Test(
        "every scan lookup, with a store or without, searches an index: none scans the catalog or sorts",
        arguments: [
            (SQLiteProductRepository.byGTIN, 1), (SQLiteProductRepository.byLabel, 2),
            (SQLiteProductRepository.byGTINInStore, 2), (SQLiteProductRepository.byLabelInStore, 4),
        ])
    func lookupsUseIndexes(sql: String, searches: Int) async throws {
        let arguments: StatementArguments = sql.contains("?2") ? ["x", "store_1"] : ["x"]
        let plan = try await database.pool.read { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments).map { $0["detail"] as String }
        }
        // A choice of a compound lookup reads the one row its subquery found ("SCAN (subquery-N)").
        let ofTheCatalog = plan.filter { $0.contains("product") }
        #expect(ofTheCatalog.count == searches, "\(plan)")
        #expect(ofTheCatalog.allSatisfy { $0.hasPrefix("SEARCH product USING INDEX") }, "\(plan)")
        #expect(!plan.contains { $0.contains("TEMP B-TREE") || $0.hasPrefix("SCAN product") }, "\(plan)")
    }

    @Test("delete removes the product and says whether there was one")
    func delete() async throws {
        _ = try await products.upsert([product("prod_1", barcode: "5901234123457", sku: "S1")])
        #expect(try await products.delete(id: "prod_1"))
        #expect(try await products.delete(id: "prod_1") == false)
        #expect(try await products.product(.gtin("05901234123457"), visibleTo: "store_1") == nil)
        #expect(try await products.product(.skuOrBarcode("S1"), visibleTo: "store_1") == nil)
        #expect(try await products.count() == 0)
        // Its GTIN and SKU are free again.
        _ = try await products.upsert([product("prod_2", barcode: "5901234123457", sku: "S1")])
        #expect(try await products.product(.gtin("05901234123457"), visibleTo: "store_1")?.id == "prod_2")
    }

    @Test("the schema's checks come back as invalid params at the product's index")
    func checks() async throws {
        let error = await #expect(throws: ScanBridgeError.self) {
            try await products.upsert([product("prod_1"), product("prod_2", pence: -1)])
        }
        #expect(error?.code == .invalidParams)
        #expect(error?.field == "[1].price")
        #expect(try await products.count() == 0)
    }

    @Test("a database that cannot be written is unavailable, with a message to act on")
    func readOnly() async throws {
        try await database.pool.writeWithoutTransaction { try $0.execute(sql: "PRAGMA query_only = 1") }
        let error = await #expect(throws: ScanBridgeError.self) { try await products.upsert([product("prod_1")]) }
        #expect(error?.code == .unavailable)
        #expect(
            error?.message.hasPrefix("the database \(file.path) is read-only, so ScanBridge could not save the products: ")
                == true)
    }

    @Test("many concurrent lookups each find their product")
    func concurrentLookups() async throws {
        let batch = (0..<200).map { product("prod_\($0)", sku: "SKU-\($0)") }
        _ = try await products.upsert(batch)
        let products = products
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask {
                    let found = try await products.product(.skuOrBarcode("SKU-\(index)"), visibleTo: "store_1")
                    #expect(found?.id == "prod_\(index)")
                }
            }
            try await group.waitForAll()
        }
    }
}
