import GRDB

extension StoreDatabase {
    /// Which shop's database the cards and customers here are a replica of, and the last of
    /// its changes they hold. No row: they are this counter's own.
    static func registerShopReplicaSchema(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v7-shop-replica") { db in
            try db.execute(
                sql: """
                    CREATE TABLE shop_replica (
                        one INTEGER PRIMARY KEY CHECK (one = 1),
                        shopId TEXT NOT NULL,
                        lastChange INTEGER NOT NULL CHECK (lastChange >= 0),
                        lastChangeStamp INTEGER NOT NULL
                    );
                    """)
        }
    }
}
