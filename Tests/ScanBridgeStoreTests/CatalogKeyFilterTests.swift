import Foundation
import GRDB
import ScanBridgeCore
import ScanBridgeModel
import Testing

@testable import ScanBridgeStore

@Suite("Catalog key filter")
struct CatalogKeyFilterTests {
    @Test("a Bloom filter never forgets a key, and rarely claims one it never saw")
    func bloomFilter() {
        var filter = BloomFilter(capacity: 10_000)
        let stored = (0..<10_000).map { KeyHash(tag: 0x4C, value: "SKU-\($0)") }
        for hash in stored { filter.insert(hash) }
        #expect(stored.allSatisfy(filter.mightContain))
        let unknown = (0..<100_000).filter { filter.mightContain(KeyHash(tag: 0x4C, value: "bench-\($0)")) }
        // Full to its capacity, the design's rate is about 1 in 1,000 (BloomFilter.init).
        #expect(unknown.count < 150, "false maybes: \(unknown.count) of 100,000")
        #expect(!filter.mightContain(KeyHash(tag: 0x47, value: "SKU-1")), "the tag is part of the key")
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
        #expect(keys.mightContain(.gtin("05901234123457")))
        #expect(keys.mightContain(.skuOrBarcode("CR-1")))
        #expect(keys.mightContain(.skuOrBarcode("CBL-2M")))
        #expect(keys.mightContain(.skuOrBarcode("5901234123457")), "a barcode is a label too")
        #expect(!keys.mightContain(.skuOrBarcode("bench-1")))
        #expect(!keys.mightContain(.gtin("04006381333931")))
        #expect(try await products.product(.skuOrBarcode("bench-1"), visibleTo: "store_1") == nil)
        #expect(try await products.product(.skuOrBarcode("CR-1"), visibleTo: "store_1")?.id == "prod_crisps")

        _ = try await products.upsert([product("prod_new", barcode: "4006381333931", sku: "NEW-1")])
        #expect(try await products.product(.gtin("04006381333931"), visibleTo: "store_1")?.id == "prod_new", "added at once")
        #expect(try await products.product(.skuOrBarcode("NEW-1"), visibleTo: "store_1")?.id == "prod_new")
    }

    @Test("products written while the keys are being loaded are found, added and changed alike")
    func writesDuringBuild() async throws {
        let file = try TemporaryDatabase()
        let database = try StoreDatabase(path: file.path)
        // Twenty chunks of the build's scan.
        let first = (0..<40_000).map { product("prod_a\($0)", sku: "A-\($0)") }
        _ = try await SQLiteProductRepository(database: database).upsert(first)
        // The writer waits until the build's first job and every batch are queued behind it.
        let queued = DispatchSemaphore(value: 0)
        database.pool.asyncWriteWithoutTransaction { _ in queued.wait() }
        let products = SQLiteProductRepository(database: database, keyChunkRows: 2_000)
        // Written on the writer right behind the build's first job, which queues its next
        // one only when it ends: every batch goes in while the keys are being loaded, however
        // busy the machine. Each batch also gives new SKUs to products of the first chunk,
        // which that job has scanned already: only the writes themselves can put those keys
        // in the filter being built.
        let later = (0..<20).map { batch in
            (0..<1_000).map { product("prod_b\(batch)_\($0)", sku: "B-\(batch)-\($0)") }
                + (batch * 100..<(batch + 1) * 100).map { product("prod_a\($0)", sku: "A2-\($0)") }
        }
        let writtenDuringBuild = try await withThrowingTaskGroup(of: Bool.self) { group in
            for batch in later {
                let written = AsyncThrowingStream<Bool, any Error>.makeStream()
                database.pool.asyncWrite(
                    { db in
                        try products.store(batch, gtins: batch.map(\.gtin), nowMs: 0, db)
                        return products.keys.builtBits == nil
                    },
                    completion: { _, result in
                        written.continuation.yield(with: result)
                        written.continuation.finish()
                    })
                group.addTask { try await written.stream.first { _ in true } ?? false }
            }
            queued.signal()
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(writtenDuringBuild == later.count, "batches written while the keys were being loaded")
        try await products.waitForKeys(timeout: .seconds(10))
        for item in first.dropFirst(2_000) + later.joined() {
            let found = try await products.product(.skuOrBarcode(item.sku!), visibleTo: "store_1")
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
        #expect(try await products.product(.skuOrBarcode("C-49999"), visibleTo: "store_1")?.id == "prod_c49999")
        #expect(try await products.product(.skuOrBarcode("C-0"), visibleTo: "store_1")?.id == "prod_c0")
        #expect(!products.keys.mightContain(.skuOrBarcode("bench-1")))
    }
}
