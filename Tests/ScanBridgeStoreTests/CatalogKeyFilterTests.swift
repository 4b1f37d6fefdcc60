import Foundation
import ScanBridgeCore
import ScanBridgeModel
import Testing

@testable import ScanBridgeStore

@Suite("Catalog key filter")
struct CatalogKeyFilterTests {
    @Test("a Bloom filter never forgets a key, and rarely claims one it never saw")
    func bloomFilter() {
        var filter = BloomFilter(capacity: 10_000)
        let stored = (0..<10_000).map { KeyHash(tag: 0x4C, scope: "store_1", value: "SKU-\($0)") }
        for hash in stored { filter.insert(hash) }
        #expect(stored.allSatisfy(filter.mightContain))
        let unknown = (0..<100_000).filter { filter.mightContain(KeyHash(tag: 0x4C, scope: "store_1", value: "bench-\($0)")) }
        // Full to its capacity, the design's rate is about 1 in 1,000 (BloomFilter.init).
        #expect(unknown.count < 150, "false maybes: \(unknown.count) of 100,000")
        #expect(!filter.mightContain(KeyHash(tag: 0x47, scope: "store_1", value: "SKU-1")), "the tag is part of the key")
        #expect(!filter.mightContain(KeyHash(tag: 0x4C, scope: "store_2", value: "SKU-1")), "the store is part of the key")
    }

    @Test("unknown codes are answered without a read once the keys are loaded; known ones still found")
    func unknownCodes() async throws {
        let file = try TemporaryDatabase()
        let database = try StoreDatabase(path: file.path)
        _ = try await SQLiteProductRepository(database: database).upsert([
            product("prod_crisps", barcode: "5901234123457", sku: "CR-1"), product("prod_cable", barcode: "CBL-2M"),
        ])
        let products = SQLiteProductRepository(database: database)
        try await products.waitForKeys(timeout: .seconds(10))
        let keys = products.keys
        #expect(keys.mightContain(.gtin("05901234123457"), in: "store_1"))
        #expect(keys.mightContain(.skuOrBarcode("CR-1"), in: "store_1"))
        #expect(keys.mightContain(.skuOrBarcode("CBL-2M"), in: "store_1"))
        #expect(keys.mightContain(.skuOrBarcode("5901234123457"), in: "store_1"), "a barcode is a label too")
        #expect(!keys.mightContain(.skuOrBarcode("bench-1"), in: "store_1"))
        #expect(!keys.mightContain(.gtin("04006381333931"), in: "store_1"))
        #expect(try await products.product(.skuOrBarcode("bench-1"), in: "store_1") == nil)
        #expect(try await products.product(.skuOrBarcode("CR-1"), in: "store_1")?.id == "prod_crisps")

        _ = try await products.upsert([product("prod_new", barcode: "4006381333931", sku: "NEW-1")])
        #expect(try await products.product(.gtin("04006381333931"), in: "store_1")?.id == "prod_new", "added at once")
        #expect(try await products.product(.skuOrBarcode("NEW-1"), in: "store_1")?.id == "prod_new")
    }

    @Test("products written while the keys are being loaded are found, added and changed alike")
    func writesDuringBuild() async throws {
        let file = try TemporaryDatabase()
        let database = try StoreDatabase(path: file.path)
        // Many chunks of the build's scan: each is queued on the writer when the one before
        // ends, so a write queued at any time during the build goes in before the next chunk.
        let first = (0..<40_000).map { product("prod_a\($0)", sku: "A-\($0)") }
        _ = try await SQLiteProductRepository(database: database).upsert(first)
        let products = SQLiteProductRepository(database: database, keyChunkRows: 256)
        // Written while the build runs: its batches interleave with the scan's chunks on the
        // writer. Each batch also gives new SKUs to products at the start of the catalog, which
        // the build's first jobs scan first: for those the scan has passed, only the writes
        // themselves can put the new keys in the filter being built.
        var later: [Product] = []
        var writtenDuringBuild = 0
        for batch in 0..<20 {
            let added = (0..<1_000).map { product("prod_b\(batch)_\($0)", sku: "B-\(batch)-\($0)") }
            let changed = (batch * 100..<(batch + 1) * 100).map { product("prod_a\($0)", sku: "A2-\($0)") }
            _ = try await products.upsert(added + changed)
            // Still building once the batch has committed: it went in between two of the scan's jobs.
            if products.keys.builtBits == nil { writtenDuringBuild += 1 }
            later += added + changed
        }
        #expect(writtenDuringBuild > 0, "no batch was written while the keys were being loaded")
        try await products.waitForKeys(timeout: .seconds(10))
        for item in first.dropFirst(2_000) + later {
            let found = try await products.product(.skuOrBarcode(item.sku!), in: "store_1")
            guard found?.id == item.id else {
                Issue.record("\(item.sku!) not found after the build (\(writtenDuringBuild) batches written during it)")
                return
            }
        }
    }

    @Test("a filter grown past its size is rebuilt larger, in the background")
    func growth() async throws {
        let file = try TemporaryDatabase()
        let products = SQLiteProductRepository(database: try StoreDatabase(path: file.path))
        try await products.waitForKeys(timeout: .seconds(10))
        let bits = try #require(products.keys.builtBits)
        // Far more keys than an empty catalog's filter is sized for.
        let grown = (0..<50_000).map { product("prod_c\($0)", sku: "C-\($0)") }
        for start in stride(from: 0, to: grown.count, by: 5_000) {
            _ = try await products.upsert(Array(grown[start..<start + 5_000]))
        }
        try await products.waitForKeys(timeout: .seconds(10))
        #expect(try #require(products.keys.builtBits) > bits)
        #expect(try await products.product(.skuOrBarcode("C-49999"), in: "store_1")?.id == "prod_c49999")
        #expect(try await products.product(.skuOrBarcode("C-0"), in: "store_1")?.id == "prod_c0")
        #expect(!products.keys.mightContain(.skuOrBarcode("bench-1"), in: "store_1"))
    }
}
