import Foundation
import GRDB
import ScanBridgeModel
import Testing

@testable import ScanBridgeStore

/// Migration "v8-money-minor-units": `priceMinor` from hundredths of every currency to each
/// currency's own minor unit, every price keeping its value.
@Suite("Money migration to minor units")
struct MoneyMigrationTests {
    /// Products as the schema up to "v7-shop-replica" kept them: prices in hundredths.
    private func makeV7Database(at path: String, prices: [(id: String, hundredths: Int64, currency: String)], replica: Bool)
        throws
    {
        let pool = try DatabasePool(path: path)
        try StoreDatabase.migrator.migrate(pool, upTo: "v7-shop-replica")
        try pool.write { db in
            for (index, price) in prices.enumerated() {
                try db.execute(
                    sql: """
                        INSERT INTO product (id, storeId, name, priceMinor, currency, sku, trackStock, quantity,
                            lowStockThreshold, allowNegativeStock, createdAtMs, updatedAtMs)
                        VALUES (?, '', ?, ?, ?, ?, 0, 0, 0, 0, 1, 2)
                        """, arguments: [price.id, "Product \(price.id)", price.hundredths, price.currency, "SKU-\(index)"])
            }
            if replica {
                try db.execute(
                    sql: "INSERT INTO shop_replica (one, shopId, lastChange, lastChangeStamp) VALUES (1, 'shop', 42, 0)")
            }
        }
    }

    private func wirePrices(_ database: StoreDatabase) async throws -> [String: String] {
        let repository = SQLiteProductRepository(database: database)
        var prices: [String: String] = [:]
        let ids = try await database.pool.read { try String.fetchAll($0, sql: "SELECT id FROM product") }
        for id in ids {
            let product = try #require(try await repository.product(id: id))
            prices[id] = "\(product.price.amount) \(product.price.currency)"
        }
        return prices
    }

    @Test("each price keeps its value: ×10 with three decimals, ÷100 with none, two decimals as they were")
    func convertsEveryCurrency() async throws {
        let file = try TemporaryDatabase()
        try makeV7Database(
            at: file.path,
            prices: [
                ("gbp", 350, "GBP"), ("jpy", 50000, "JPY"), ("kwd", 125, "KWD"), ("bhd", 1, "BHD"),
                ("clp", 100_000, "CLP"), ("free", 0, "JPY"), ("ang", 199, "ANG"),
                // Ten billion units, less a hundredth: the largest the daemon ever stored.
                ("big", 999_999_999_999, "KWD"),
            ], replica: false)

        let database = try StoreDatabase(path: file.path)
        #expect(try migrations(database).contains("v8-money-minor-units"))
        #expect(
            try await wirePrices(database) == [
                "gbp": "3.50 GBP", "jpy": "500 JPY", "kwd": "1.250 KWD", "bhd": "0.010 BHD", "clp": "1000 CLP",
                "free": "0 JPY", "ang": "1.99 ANG", "big": "9999999999.990 KWD",
            ])
        let kwd = try fetchRow(database, "SELECT priceMinor FROM product WHERE id = 'kwd'")
        #expect(kwd?["priceMinor"] == 1250 as Int64)
    }

    @Test("a fraction of a currency without decimals stops the migration, naming every such product")
    func refusesAFractionOfAYen() throws {
        let file = try TemporaryDatabase()
        try makeV7Database(
            at: file.path,
            prices: [("tea", 550, "JPY"), ("gum", 1, "KRW"), ("rice", 60000, "JPY"), ("dates", 125, "KWD")],
            replica: false)

        let refusal = #expect(throws: MoneyMigrationRefused.self) { _ = try StoreDatabase(path: file.path) }
        let message = refusal?.description ?? ""
        #expect(refusal?.products.map(\.id) == ["gum", "tea"])
        #expect(message.contains("gum 0.01 KRW, tea 5.50 JPY"), "\(message)")
        #expect(message.contains("sqlite3 \(file.path) \"UPDATE product SET priceMinor = 100 WHERE id = 'gum'\""), "\(message)")
        #expect(message.contains("nothing was changed"), "\(message)")

        // Nothing changed: the file is as it was, and opens once the prices are whole.
        let pool = try DatabasePool(path: file.path)
        let stored = try pool.read { db in
            try Row.fetchAll(db, sql: "SELECT id, priceMinor FROM product ORDER BY id").map {
                "\($0["id"] as String) \($0["priceMinor"] as Int64)"
            }
        }
        #expect(stored == ["dates 125", "gum 1", "rice 60000", "tea 550"])
        #expect(
            try pool.read { try String.fetchAll($0, sql: "SELECT identifier FROM grdb_migrations") }.last == "v7-shop-replica")
        try pool.write { db in
            try db.execute(sql: "UPDATE product SET priceMinor = 600 WHERE id = 'tea'")
            try db.execute(sql: "DELETE FROM product WHERE id = 'gum'")
        }
        try pool.close()
        let database = try StoreDatabase(path: file.path)
        #expect(try fetchRow(database, "SELECT priceMinor FROM product WHERE id = 'tea'")?["priceMinor"] == 6 as Int64)
        #expect(try fetchRow(database, "SELECT priceMinor FROM product WHERE id = 'dates'")?["priceMinor"] == 1250 as Int64)
    }

    @Test("a copy of the shop's catalog leaves such a row out: the shop's store holds it")
    func aReplicaLeavesTheFractionOut() async throws {
        let file = try TemporaryDatabase()
        try makeV7Database(
            at: file.path, prices: [("tea", 550, "JPY"), ("rice", 60000, "JPY"), ("dates", 125, "KWD")], replica: true)

        let database = try StoreDatabase(path: file.path)
        #expect(try await wirePrices(database) == ["rice": "600 JPY", "dates": "1.250 KWD"])
        let position = try fetchRow(database, "SELECT lastChange FROM shop_replica")
        #expect(position?["lastChange"] == 42 as Int64, "where the copy stands is kept")
    }

    @Test("the migration's currencies are the table's: a change of a minor unit needs a migration of its own")
    func frozenListsMatchTheTable() {
        #expect(Set(Currency.migratedNoDecimals) == Currency.codes.filter { Currency.minorUnit(of: $0) == 0 })
        #expect(Set(Currency.migratedThreeDecimals) == Currency.codes.filter { Currency.minorUnit(of: $0) == 3 })
    }
}
