import GRDB

extension StoreDatabase {
    /// The gateway's access tokens. Only a secret's SHA-256 is kept, unique so that one secret
    /// can never name two tokens; a revoked token's row is deleted.
    static func registerTokenSchema(in migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v5-access-tokens") { db in
            try db.execute(
                sql: """
                    CREATE TABLE access_token (
                        id TEXT PRIMARY KEY,
                        name TEXT NOT NULL,
                        role TEXT NOT NULL CHECK (role IN ('reader', 'operator', 'admin')),
                        origins TEXT NOT NULL, -- a JSON array of scheme://host[:port]
                        secretHash BLOB NOT NULL UNIQUE CHECK (length(secretHash) = 32),
                        createdAtMs INTEGER NOT NULL,
                        expiresAtMs INTEGER,
                        lastUsedAtMs INTEGER
                    );
                    """)
        }
    }
}
