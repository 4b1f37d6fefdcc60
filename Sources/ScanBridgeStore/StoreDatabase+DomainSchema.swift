import GRDB

extension StoreDatabase {
    /// The catalog, customers, cards and repair orders. The rules the domain relies on are
    /// constraints of the schema, so no code path can break them: one product per GTIN and
    /// per SKU in a store, one link per card UID, one order per printed reference.
    ///
    /// Times are integer milliseconds since 1970 (as the journal's `timeMs`); money is
    /// integer minor units next to its ISO 4217 currency.
    static func registerDomainSchema(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v2-domain") { db in
            // `gtin` is derived from `barcode` (its GTIN-14, NULL when the barcode is no GTIN),
            // stored so a scan in any EAN/UPC form finds the product through one index.
            try db.execute(
                sql: """
                    CREATE TABLE product (
                        id TEXT PRIMARY KEY,
                        storeId TEXT NOT NULL,
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
                        UNIQUE (storeId, gtin),
                        UNIQUE (storeId, sku)
                    );
                    CREATE INDEX product_store_barcode ON product(storeId, barcode);

                    CREATE TABLE customer (
                        walletAddress TEXT PRIMARY KEY,
                        name TEXT,
                        email TEXT,
                        phone TEXT,
                        firstCardLinkedAtMs INTEGER,
                        firstPaymentAtMs INTEGER,
                        autoSignEnabledAtMs INTEGER,
                        createdAtMs INTEGER NOT NULL
                    );

                    CREATE TABLE card (
                        uid TEXT PRIMARY KEY, -- uppercase hex, no separators
                        walletAddress TEXT NOT NULL REFERENCES customer(walletAddress),
                        cardName TEXT,
                        status TEXT NOT NULL CHECK (status IN ('active', 'inactive', 'blocked')),
                        createdAtMs INTEGER NOT NULL
                    );
                    CREATE INDEX card_wallet ON card(walletAddress);

                    CREATE TABLE repair_order (
                        id TEXT PRIMARY KEY,
                        reference TEXT NOT NULL UNIQUE COLLATE NOCASE,
                        status TEXT NOT NULL,
                        clientId TEXT,
                        clientName TEXT,
                        createdAtMs INTEGER NOT NULL
                    );

                    CREATE TABLE repair_device (
                        id TEXT PRIMARY KEY,
                        orderId TEXT NOT NULL REFERENCES repair_order(id) ON DELETE CASCADE,
                        position INTEGER NOT NULL,
                        make TEXT,
                        model TEXT,
                        serial TEXT,
                        status TEXT NOT NULL
                    );
                    CREATE INDEX repair_device_order ON repair_device(orderId);
                    """)
        }
    }
}
