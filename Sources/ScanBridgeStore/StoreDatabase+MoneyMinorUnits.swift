import GRDB
import ScanBridgeModel

extension StoreDatabase {
    /// Amounts in their currency's ISO 4217 minor unit: `priceMinor` held hundredths for every
    /// currency, and now holds yen for JPY and fils for KWD. Each price keeps its value: ×10
    /// in a currency with three decimals, ÷100 in one with none.
    ///
    /// A price in a currency with no decimals that is not a whole unit (5.50 JPY, accepted
    /// when every currency had two) has no value it could keep. In this counter's own catalog
    /// the migration then changes nothing and the database does not open: the error names
    /// each such product with its price and how to fix it, because a till that silently sold
    /// at another price would be worse than one that waits for the shop to choose. In a copy
    /// of the shop's catalog (`shop_replica` has its row) such a row is only a copy: it is
    /// left out, and comes back from the shop once the shop's store has been fixed and
    /// migrated (its migration 7 refuses the same rows in the same way).
    ///
    /// The currencies are those of ``Currency/migratedNoDecimals`` and
    /// ``Currency/migratedThreeDecimals``, frozen as a released migration is.
    static func registerMoneyMinorUnits(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v8-money-minor-units") { db in
            let none = sqlList(Currency.migratedNoDecimals)
            let three = sqlList(Currency.migratedThreeDecimals)
            let fractions = try Row.fetchAll(
                db,
                sql: """
                    SELECT id, priceMinor, currency FROM product
                    WHERE currency IN (\(none)) AND priceMinor % 100 <> 0 ORDER BY id
                    """
            ).map { row in
                MoneyMigrationRefused.Product(id: row[0], hundredths: row[1], currency: row[2])
            }
            if !fractions.isEmpty {
                let isReplica = try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM shop_replica)") ?? false
                guard isReplica else { throw MoneyMigrationRefused(products: fractions) }
                try db.execute(
                    sql: "DELETE FROM product WHERE currency IN (\(none)) AND priceMinor % 100 <> 0")
            }
            try db.execute(
                sql: """
                    UPDATE product SET priceMinor = priceMinor * 10 WHERE currency IN (\(three));
                    UPDATE product SET priceMinor = priceMinor / 100 WHERE currency IN (\(none));
                    """)
        }
    }

    private static func sqlList(_ codes: [String]) -> String {
        codes.map { "'\($0)'" }.joined(separator: ", ")
    }
}

/// Migration `v8-money-minor-units` found prices in a currency without decimals that are not
/// whole units: naming each, and saying how to fix them.
package struct MoneyMigrationRefused: Error, CustomStringConvertible {
    package struct Product: Sendable, Hashable {
        package var id: String
        /// The price as it was stored: hundredths.
        package var hundredths: Int64
        package var currency: String
    }

    package var products: [Product]
    /// The database file, for the command that fixes a price in it.
    package var path = "FILE"

    package var description: String {
        let listed = products.map { "\($0.id) \(Money.decimalText($0.hundredths, decimals: 2)) \($0.currency)" }
        // The first, rounded up to a whole amount, as an example of the fix.
        let first = products[0]
        let whole = first.hundredths / 100 + 1
        let example = "UPDATE product SET priceMinor = \(whole * 100) WHERE id = '\(first.id)'"
        return "the catalog was not moved to amounts in each currency's own decimals, and nothing was changed: "
            + "\(products.count == 1 ? "a price is" : "\(products.count) prices are") not a whole amount of a "
            + "currency without decimals: \(listed.joined(separator: ", ")). Give each a whole price (or delete "
            + "the product) with the ScanBridge version that stored it, then start this one again; or, with the "
            + "daemon stopped, in the database: sqlite3 \(path) \"\(example)\" (until this upgrade priceMinor "
            + "holds hundredths: \(whole * 100) is \(whole) \(first.currency))"
    }
}
