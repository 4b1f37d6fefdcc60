import Logging
import PostgresNIO

/// The shop's database schema, created and migrated by the daemons themselves: each migration
/// runs once, in order, in one transaction. Daemons starting at once take turns behind a
/// transaction-scoped advisory lock, so none applies a migration another is applying.
/// A migration, once released, is never edited: a change is a new one at the end.
package enum SharedSchema {
    struct Migration: Sendable {
        let version: Int
        let name: String
        let statements: [String]
    }

    /// Any constant the shop's other programs will not take: "SCANBRDG" in ASCII.
    static let lockKey: Int64 = 0x5343_414E_4252_4447

    static let migrations: [Migration] = [
        Migration(
            version: 1, name: "scan events",
            statements: [
                """
                CREATE TABLE scan_events (
                    counter_id text NOT NULL,
                    seq bigint NOT NULL,
                    time timestamptz NOT NULL,
                    kind text NOT NULL,
                    device text NOT NULL,
                    text text,
                    status text,
                    event jsonb NOT NULL,
                    PRIMARY KEY (counter_id, seq)
                )
                """,
                "CREATE INDEX scan_events_time ON scan_events (time)",
            ]),
        Migration(
            version: 2, name: "customer erasure",
            statements: [
                // customers.erase finds the copies that carry a wallet without reading them all.
                """
                CREATE INDEX scan_events_customer_wallet
                ON scan_events ((event->'resolution'->'customer'->>'walletAddress'))
                """,
                "CREATE INDEX scan_events_card_wallet ON scan_events ((event->'resolution'->'card'->>'walletAddress'))",
                // The wallets erased, so that events copied later (a counter that was offline)
                // are erased on their way in.
                "CREATE TABLE erased_wallets (wallet_address text PRIMARY KEY, erased_at timestamptz NOT NULL)",
            ]),
    ]

    /// The newest version this daemon knows.
    package static var latestVersion: Int { migrations.last?.version ?? 0 }

    package struct NewerSchema: Error, CustomStringConvertible {
        let found: Int
        package var description: String {
            "the shop's database has schema version \(found), newer than this daemon's \(SharedSchema.latestVersion): "
                + "upgrade ScanBridge on this counter"
        }
    }

    /// Brings the schema up to date; returns the versions it applied.
    @discardableResult
    package static func migrate(_ connection: PostgresConnection, logger: Logger) async throws -> [Int] {
        try await connection.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(lockKey))", logger: logger)
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS scanbridge_migrations (
                    version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())
                """, logger: logger)
            var current = 0
            for try await version in try await connection.query(
                "SELECT coalesce(max(version), 0) FROM scanbridge_migrations", logger: logger
            ).decode(Int.self) {
                current = version
            }
            guard current <= latestVersion else { throw NewerSchema(found: current) }
            var applied: [Int] = []
            for migration in migrations where migration.version > current {
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query(
                    "INSERT INTO scanbridge_migrations (version, name) VALUES (\(migration.version), \(migration.name))",
                    logger: logger)
                applied.append(migration.version)
            }
            return applied
        }
    }
}
