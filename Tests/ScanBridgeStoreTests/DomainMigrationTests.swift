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
        #expect(try await products.product(.gtin("05901234123457"), in: "store_1")?.id == "prod_1")
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
            ])
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
