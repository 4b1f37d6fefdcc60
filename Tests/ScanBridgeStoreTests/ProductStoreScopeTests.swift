import Foundation
import GRDB
import ScanBridgeCore
import ScanBridgeModel
import Testing

@testable import ScanBridgeStore

/// Which products a daemon finds: every product when it has no store; its store's and those
/// of no store when it has one, its own first.
@Suite("Product store scope")
final class ProductStoreScopeTests {
    let file: TemporaryDatabase
    let database: StoreDatabase
    let products: SQLiteProductRepository

    init() throws {
        file = try TemporaryDatabase()
        database = try StoreDatabase(path: file.path)
        products = SQLiteProductRepository(database: database)
    }

    private func found(_ key: ProductKey, _ store: String?) async throws -> String? {
        try await products.product(key, visibleTo: store)?.id
    }

    @Test("a product given without a store has none: null on the wire, '' in the table, nil read back")
    func noStoreRoundTrip() async throws {
        for storeId: JSONValue? in [nil, .null, .string(""), .string("  ")] {
            var members: [String: JSONValue] = ["name": "Tea", "price": "2.00", "sku": "TEA-1"]
            members["storeId"] = storeId
            let input = try JSONFields(.object(members), path: "product")
            let parsed = try Product(input: input, settings: CatalogSettings(storeId: "store_1"))
            #expect(parsed.storeId == nil, "\(String(describing: storeId)): the daemon's store is not the product's")
            #expect(parsed.wire["storeId"] == .null)
        }
        let given = try Product(
            input: JSONFields(.object(["name": "Tea", "price": "2.00", "sku": "TEA-1", "storeId": " store_123 "])),
            settings: CatalogSettings())
        #expect(given.storeId == "store_123")

        let tea = product("prod_tea", store: nil, sku: "TEA-1")
        #expect(try await products.upsert([tea]) == [tea])
        #expect(try fetchRow(database, "SELECT storeId FROM product WHERE id = 'prod_tea'")?["storeId"] == "")
        #expect(try await products.product(id: "prod_tea") == tea)
        #expect(try await products.product(.skuOrBarcode("TEA-1"), visibleTo: nil) == tea)
    }

    @Test("the visibility rule: no store configured sees all; a store sees its own and those of no store")
    func visibility() {
        let own = product("a", store: "store_1")
        let other = product("b", store: "store_2")
        let none = product("c", store: nil)
        #expect([own, other, none].allSatisfy { $0.isVisible(to: nil) })
        #expect(own.isVisible(to: "store_1") && none.isVisible(to: "store_1"))
        #expect(!other.isVisible(to: "store_1"))
    }

    @Test("a daemon with no store finds every product, by GTIN, SKU and barcode text")
    func noStoreConfigured() async throws {
        _ = try await products.upsert([
            product("prod_1", store: "store_1", barcode: "5901234123457"),
            product("prod_123", store: "store_123", sku: "SKU001"),
            product("prod_none", store: nil, barcode: "SHELF-9"),
        ])
        #expect(try await found(.gtin("05901234123457"), nil) == "prod_1")
        #expect(try await found(.skuOrBarcode("SKU001"), nil) == "prod_123")
        #expect(try await found(.skuOrBarcode("SHELF-9"), nil) == "prod_none")
        #expect(try await found(.skuOrBarcode("5901234123457"), nil) == "prod_1", "a GTIN barcode is a label too")
        #expect(try await found(.gtin("04006381333931"), nil) == nil)
    }

    @Test("a daemon with a store finds its products and those of no store, never another store's")
    func storeConfigured() async throws {
        _ = try await products.upsert([
            product("prod_own", store: "store_1", barcode: "5901234123457"),
            product("prod_other", store: "store_2", barcode: "4006381333931", sku: "OTHER-1"),
            product("prod_none", store: nil, barcode: "SHELF-9", sku: "SHARED-1"),
        ])
        #expect(try await found(.gtin("05901234123457"), "store_1") == "prod_own")
        #expect(try await found(.skuOrBarcode("SHARED-1"), "store_1") == "prod_none")
        #expect(try await found(.skuOrBarcode("SHELF-9"), "store_1") == "prod_none")
        #expect(try await found(.gtin("04006381333931"), "store_1") == nil)
        #expect(try await found(.skuOrBarcode("OTHER-1"), "store_1") == nil)
        #expect(try await found(.gtin("04006381333931"), "store_2") == "prod_other")
        #expect(try await found(.gtin("05901234123457"), "store_2") == nil)
    }

    @Test("with a store, its own product comes before the one of no store, for every kind of code")
    func ownStoreFirst() async throws {
        // No store's products stored first: the order of writing decides nothing.
        _ = try await products.upsert([
            product("prod_none", store: nil, barcode: "5901234123457", sku: "CR-1"),
            product("prod_none_label", store: nil, sku: "X-1"), product("prod_none_shelf", store: nil, barcode: "SHELF-1"),
        ])
        _ = try await products.upsert([
            product("prod_own", store: "store_1", barcode: "5901234123457", sku: "CR-1"),
            product("prod_own_label", store: "store_1", barcode: "X-1"),
            product("prod_own_shelf", store: "store_1", barcode: "SHELF-1"),
        ])
        #expect(try await found(.gtin("05901234123457"), "store_1") == "prod_own")
        #expect(try await found(.skuOrBarcode("CR-1"), "store_1") == "prod_own")
        #expect(try await found(.skuOrBarcode("SHELF-1"), "store_1") == "prod_own_shelf")
        // The store before the kind: its product's barcode text before a SKU of no store.
        #expect(try await found(.skuOrBarcode("X-1"), "store_1") == "prod_own_label")
        // Another store's daemon falls back to no store's.
        #expect(try await found(.gtin("05901234123457"), "store_2") == "prod_none")
        #expect(try await found(.skuOrBarcode("X-1"), "store_2") == "prod_none_label")
    }

    @Test("with no store, a code several stores have finds no store's product, then the first store id")
    func noStorePreference() async throws {
        _ = try await products.upsert([product("prod_york", store: "york", barcode: "5901234123457", sku: "CR-1")])
        _ = try await products.upsert([product("prod_leeds", store: "leeds", barcode: "5901234123457", sku: "CR-1")])
        _ = try await products.upsert([product("prod_london", store: "london", barcode: "5901234123457", sku: "CR-1")])
        #expect(try await found(.gtin("05901234123457"), nil) == "prod_leeds", "leeds < london < york, bytewise")
        #expect(try await found(.skuOrBarcode("CR-1"), nil) == "prod_leeds")
        _ = try await products.upsert([product("prod_none", store: nil, barcode: "5901234123457", sku: "CR-1")])
        #expect(try await found(.gtin("05901234123457"), nil) == "prod_none")
        #expect(try await found(.skuOrBarcode("CR-1"), nil) == "prod_none")
        // A label is a SKU before it is a barcode text, in whichever store.
        _ = try await products.upsert([
            product("prod_shelf", store: nil, barcode: "X-1"), product("prod_sku", store: "york", sku: "X-1"),
        ])
        #expect(try await found(.skuOrBarcode("X-1"), nil) == "prod_sku")
        // Within a store, the oldest of the products sharing a barcode text.
        _ = try await products.upsert([product("prod_z", store: "york", barcode: "SHELF-2")])
        _ = try await products.upsert([product("prod_a", store: "york", barcode: "SHELF-2")])
        _ = try await products.upsert([product("prod_b", store: "york", barcode: "SHELF-2")])
        #expect(try await found(.skuOrBarcode("SHELF-2"), nil) == "prod_z")
        #expect(try await found(.skuOrBarcode("SHELF-2"), "york") == "prod_z")
    }

    @Test("no store is one store for the unique GTIN and SKU")
    func uniquenessWithoutStore() async throws {
        _ = try await products.upsert([product("prod_1", store: nil, barcode: "5901234123457", sku: "CR-1")])
        let gtin = await #expect(throws: ScanBridgeError.self) {
            try await products.upsert([product("prod_2", store: nil, barcode: "05901234123457")])
        }
        #expect(gtin?.code == .conflict && gtin?.field == "[0].barcode")
        #expect(
            gtin?.message == "GTIN 05901234123457 already belongs to product prod_1 among the products of no store; "
                + "delete prod_1 or give this product the id prod_1")
        let sku = await #expect(throws: ScanBridgeError.self) {
            try await products.upsert([product("prod_3", store: nil, sku: "CR-1")])
        }
        #expect(sku?.code == .conflict && sku?.field == "[0].sku")
        let batch = await #expect(throws: ScanBridgeError.self) {
            try await products.upsert([product("prod_4", store: nil, sku: "N-1"), product("prod_5", store: nil, sku: "N-1")])
        }
        #expect(batch?.message.contains("of this batch, among the products of no store") == true)
        // A store's product may have the code no store's product has.
        _ = try await products.upsert([product("prod_6", store: "store_1", barcode: "5901234123457", sku: "CR-1")])
        #expect(try await products.count() == 2)
    }

    @Test("the key filter and the cache answer each scope: a miss in one never hides a product from another")
    func filterAndCacheAcrossScopes() async throws {
        try await products.waitForKeys(timeout: .seconds(10))
        let key = ProductKey.gtin("05901234123457")
        #expect(try await found(key, nil) == nil)
        #expect(try await found(key, "store_1") == nil)
        // Added to a store: found by a daemon of no store and of that store at once.
        _ = try await products.upsert([product("prod_2", store: "store_2", barcode: "5901234123457")])
        #expect(products.keys.mightContain(key))
        #expect(try await found(key, nil) == "prod_2")
        #expect(try await found(key, "store_2") == "prod_2")
        #expect(try await found(key, "store_1") == nil, "cached: a miss for store_1")
        #expect(try await found(key, nil) == "prod_2", "store_1's cached miss is not the answer without a store")
        // Added without a store: found by every daemon, the cached miss of store_1 gone.
        _ = try await products.upsert([product("prod_none", store: nil, barcode: "5901234123457")])
        #expect(try await found(key, "store_1") == "prod_none")
        #expect(try await found(key, "store_2") == "prod_2")
        #expect(try await found(key, nil) == "prod_none")
        // A fresh repository loads the keys from the table, stores and no store alike.
        let reopened = SQLiteProductRepository(database: database)
        try await reopened.waitForKeys(timeout: .seconds(10))
        #expect(reopened.keys.mightContain(key))
        #expect(try await reopened.product(key, visibleTo: nil)?.id == "prod_none")
    }
}
