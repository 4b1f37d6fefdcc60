import Foundation
import ScanBridgeCore
import ScanBridgeModel
import Testing

@testable import ScanBridgeStore

/// The catalog's listing and its staged replacement (`ProductRepository` contract).
@Suite("SQLiteProductRepository staging and listing")
final class ProductStagingTests {
    let file: TemporaryDatabase
    let products: SQLiteProductRepository

    init() throws {
        file = try TemporaryDatabase()
        products = SQLiteProductRepository(database: try StoreDatabase(path: file.path))
    }

    func ids(storeId: String? = nil) async throws -> [String] {
        try await products.products(storeId: storeId, after: nil, limit: 1000).map(\.id)
    }

    @Test func aPruningCommitReplacesOneStoresCatalogAndKeepsTheStagedFields() async throws {
        _ = try await products.upsert([
            product("gone", barcode: "5901234123457"), product("kept", sku: "K"), product("other", store: "store_2"),
        ])
        let staged = [product("kept", sku: "K", pence: 99), product("new", barcode: "5901234123457")]
        try await products.stage(staged, in: "a")
        #expect(try await ids() == ["gone", "kept", "other"], "staging changes nothing")
        let commit = try await products.commitStaged("a", pruning: true)
        #expect(commit == StagedCommit(storeId: "store_1", stored: 2, deleted: 1))
        #expect(try await ids() == ["kept", "new", "other"])
        #expect(try await products.product(id: "kept") == staged[0])
        // The barcode moved from the deleted product to the new one: found through its GTIN.
        #expect(try await products.product(.gtin("05901234123457"), visibleTo: "store_1")?.id == "new")
        #expect(try await products.commitStaged("a", pruning: true) == StagedCommit(storeId: nil, stored: 0, deleted: 0))
    }

    @Test func withoutPruningNothingIsDeleted() async throws {
        _ = try await products.upsert([product("old")])
        try await products.stage([product("new")], in: "a")
        #expect(try await products.commitStaged("a", pruning: false).deleted == 0)
        #expect(try await ids() == ["new", "old"])
    }

    @Test func aConflictOrAMixOfStoresChangesNothingAndKeepsTheArea() async throws {
        _ = try await products.upsert([product("old")])
        try await products.stage([product("a", sku: "SAME"), product("b", sku: "SAME")], in: "x")
        await #expect(throws: ScanBridgeError.self) { _ = try await self.products.commitStaged("x", pruning: true) }
        #expect(try await ids() == ["old"])

        try await products.stage([product("c", store: "store_2")], in: "y")
        try await products.stage([product("d")], in: "y")
        let mixed = await #expect(throws: ScanBridgeError.self) {
            _ = try await self.products.commitStaged("y", pruning: true)
        }
        #expect(mixed?.message.contains("more than one store") == true)
        #expect(try await ids() == ["old"])
    }

    /// Two staged products with one GTIN, or one SKU, name the field they clash on and both
    /// products.
    @Test func aClashBetweenStagedProductsNamesItsField() async throws {
        try await products.stage([product("a", barcode: "5901234123457"), product("b", barcode: "5901234123457")], in: "g")
        let gtin = await #expect(throws: ScanBridgeError.self) { _ = try await self.products.commitStaged("g", pruning: true) }
        #expect(gtin?.field == "barcode", "\(String(describing: gtin))")
        #expect(gtin?.message.contains("a") == true && gtin?.message.contains("b") == true)
        try await products.stage([product("c", sku: "SAME"), product("d", sku: "SAME")], in: "s")
        let sku = await #expect(throws: ScanBridgeError.self) { _ = try await self.products.commitStaged("s", pruning: true) }
        #expect(sku?.field == "sku", "\(String(describing: sku))")
    }

    @Test func areasAreApartAndADiscardedOneIsGone() async throws {
        try await products.stage([product("mine")], in: "a")
        try await products.stage([product("theirs")], in: "b")
        try await products.discardStaged("b")
        #expect(try await products.commitStaged("b", pruning: false).stored == 0)
        #expect(try await products.commitStaged("a", pruning: false).stored == 1)
        #expect(try await ids() == ["mine"])
    }

    @Test func listingPagesInIdOrderByStore() async throws {
        _ = try await products.upsert((0..<5).map { product("p\($0)") } + [product("q", store: "store_2")])
        #expect(try await products.products(storeId: nil, after: "p2", limit: 2).map(\.id) == ["p3", "p4"])
        #expect(try await products.products(storeId: "store_2", after: nil, limit: 10).map(\.id) == ["q"])
        #expect(try await products.products(storeId: "store_1", after: "p4", limit: 10).isEmpty)
    }
}
