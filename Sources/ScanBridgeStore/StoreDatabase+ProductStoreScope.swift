import GRDB

extension StoreDatabase {
    /// The product of no store, and lookups that need no store.
    ///
    /// A product given without a store belongs to none: its `storeId` is `''` (the model's
    /// nil). A NULL would let two such products share a GTIN or SKU, since SQLite's UNIQUE
    /// holds NULLs distinct; `''` keeps "no store" one store for the rule.
    ///
    /// The unique keys lead with the code instead of the store, so one index serves a daemon
    /// with no store (`gtin = ?`, in `storeId` order) as well as one with a store
    /// (`gtin = ? AND storeId = ?`); the table is rebuilt because SQLite cannot change a
    /// table's UNIQUE constraints in place. Rows keep their stores and their rowids (the
    /// order that makes the oldest of several products sharing a barcode text win).
    static func registerProductStoreScope(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v6-product-store-scope") { db in
            let columns = """
                rowid, id, storeId, name, priceMinor, currency, sku, category, barcode, gtin, trackStock, quantity, \
                lowStockThreshold, allowNegativeStock, parentId, variant, createdAtMs, updatedAtMs
                """
            try db.execute(
                sql: """
                    CREATE TABLE product_scoped (
                        id TEXT PRIMARY KEY,
                        storeId TEXT NOT NULL,  -- '' for a product of no store
                        name TEXT NOT NULL,
                        priceMinor INTEGER NOT NULL CHECK (priceMinor >= 0),
                        currency TEXT NOT NULL CHECK (length(currency) = 3),
                        sku TEXT,
                        category TEXT,
                        barcode TEXT,
                        gtin TEXT,
                        trackStock INTEGER NOT NULL,
                        quantity INTEGER NOT NULL,
                        lowStockThreshold INTEGER NOT NULL CHECK (lowStockThreshold >= 0),
                        allowNegativeStock INTEGER NOT NULL,
                        parentId TEXT,
                        variant TEXT,
                        createdAtMs INTEGER NOT NULL,
                        updatedAtMs INTEGER NOT NULL,
                        UNIQUE (gtin, storeId),
                        UNIQUE (sku, storeId)
                    );
                    INSERT INTO product_scoped (\(columns)) SELECT \(columns) FROM product ORDER BY rowid;
                    DROP TABLE product;
                    ALTER TABLE product_scoped RENAME TO product;
                    CREATE INDEX product_barcode_store ON product(barcode, storeId);
                    """)
        }
    }
}
