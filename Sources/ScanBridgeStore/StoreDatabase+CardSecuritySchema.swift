import GRDB

extension StoreDatabase {
    /// Cards that cannot be cloned: what a card's tap must prove (`security`; every card
    /// linked before is `uid`, as it was), and the read counter of each card's last accepted
    /// Secure Unique NFC message, kept apart from `card` because it is the tag's, linked or
    /// not, and because the shop's replica rewrites `card` rows without knowing it.
    static func registerCardSecuritySchema(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v9-card-security") { db in
            try db.execute(
                sql: """
                    ALTER TABLE card ADD COLUMN security TEXT NOT NULL DEFAULT 'uid' CHECK (security IN ('uid', 'secure'));
                    CREATE TABLE card_read_counter (
                        uid TEXT PRIMARY KEY, -- the UID inside the message, uppercase hex
                        counter INTEGER NOT NULL CHECK (counter >= 0)
                    );
                    """)
        }
    }
}
