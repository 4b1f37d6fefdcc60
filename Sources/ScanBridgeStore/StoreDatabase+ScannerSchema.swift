import GRDB

extension StoreDatabase {
    /// The operator's claims and releases of USB scanners (`devices.claim|release`): one row
    /// per key, the latest choice, so they outlive the daemon. The config file stays the
    /// operator's to edit; the daemon writes here, where it can always write atomically.
    static func registerScannerSchema(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v3-scanner-overrides") { db in
            try db.execute(
                sql: """
                    CREATE TABLE scanner_override (
                        key TEXT PRIMARY KEY, -- vvvv:pppp or a device id, lowercase
                        choice TEXT NOT NULL CHECK (choice IN ('claim', 'release')),
                        updatedAtMs INTEGER NOT NULL
                    );
                    """)
        }
    }
}
