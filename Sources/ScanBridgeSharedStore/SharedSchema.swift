import Logging
package import PostgresNIO
import ScanBridgeModel

/// The shop's database schema: each migration runs once, in order, in one transaction, by
/// the role that owns the tables (`scanbridge store migrate --owner`), or by a daemon whose
/// own role may (a shop with one role). Daemons starting at once take turns behind a
/// transaction-scoped advisory lock, so none applies a migration another is applying. A
/// daemon whose schema is current changes nothing: its role needs no more than the rows.
/// A migration, once released, is never edited: a change is a new one at the end.
package enum SharedSchema {
    struct Migration: Sendable {
        let version: Int
        let name: String
        let statements: [String]
    }

    /// Any constant the shop's other programs will not take: "SCANBRDG" in ASCII.
    static let lockKey: Int64 = 0x5343_414E_4252_4447
    /// Held by every writer of the change log until it commits ("SBCHANGE").
    static let changeLogLockKey: Int64 = 0x5342_4348_414E_4745
    /// Where the change log's triggers announce a change.
    static let changeChannel = "scanbridge_changes"

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
        Migration(
            version: 3, name: "cards and customers",
            statements: [
                // This database's identity: a counter's replica belongs to one, and a database
                // replaced under the same address is not mistaken for it.
                """
                CREATE TABLE scanbridge_shop (
                    one boolean PRIMARY KEY DEFAULT true CHECK (one),
                    id uuid NOT NULL DEFAULT gen_random_uuid(),
                    created_at timestamptz NOT NULL DEFAULT now()
                )
                """,
                "INSERT INTO scanbridge_shop DEFAULT VALUES",
                """
                CREATE TABLE scanbridge_customers (
                    wallet_address text PRIMARY KEY CHECK (wallet_address <> ''),
                    name text,
                    email text,
                    phone text,
                    first_card_linked_at timestamptz,
                    first_payment_at timestamptz,
                    auto_sign_enabled_at timestamptz,
                    created_at timestamptz NOT NULL
                )
                """,
                // The checks hold a row typed by hand to what a counter can read.
                """
                CREATE TABLE scanbridge_cards (
                    uid text PRIMARY KEY CHECK (uid ~ '^([0-9A-F]{8}|[0-9A-F]{14}|[0-9A-F]{16}|[0-9A-F]{20})$'),
                    wallet_address text NOT NULL REFERENCES scanbridge_customers (wallet_address),
                    card_name text,
                    status text NOT NULL CHECK (status IN ('active', 'inactive', 'blocked')),
                    created_at timestamptz NOT NULL
                )
                """,
                "CREATE INDEX scanbridge_cards_wallet ON scanbridge_cards (wallet_address)",
                // Every change, whoever makes it (a counter, or the back office by hand), is
                // logged by the tables' triggers and announced; the counters follow the log.
                // Writers take turns on the log until they commit, so its ids are in commit
                // order: a counter that has read up to an id has missed nothing before it.
                """
                CREATE TABLE scanbridge_changes (
                    id bigserial PRIMARY KEY,
                    table_name text NOT NULL,
                    key text NOT NULL,
                    made_at timestamptz NOT NULL DEFAULT now()
                )
                """,
                """
                CREATE FUNCTION scanbridge_log_change() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    PERFORM pg_advisory_xact_lock(\(SharedSchema.changeLogLockKey));
                    IF TG_OP <> 'INSERT' THEN
                        INSERT INTO scanbridge_changes (table_name, key) VALUES (TG_TABLE_NAME, to_jsonb(OLD) ->> TG_ARGV[0]);
                    END IF;
                    IF TG_OP = 'INSERT' OR (TG_OP = 'UPDATE' AND to_jsonb(NEW) ->> TG_ARGV[0] <> to_jsonb(OLD) ->> TG_ARGV[0]) THEN
                        INSERT INTO scanbridge_changes (table_name, key) VALUES (TG_TABLE_NAME, to_jsonb(NEW) ->> TG_ARGV[0]);
                    END IF;
                    PERFORM pg_notify('\(SharedSchema.changeChannel)', '');
                    RETURN NULL;
                END $$
                """,
                // Every statement on the shared tables waits for its turn on the log before it
                // touches a row (a row trigger would wait holding its row): a back-office edit
                // and a counter's write queue up rather than deadlock.
                """
                CREATE FUNCTION scanbridge_take_turn() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    PERFORM pg_advisory_xact_lock(\(SharedSchema.changeLogLockKey));
                    RETURN NULL;
                END $$
                """,
                // A TRUNCATE names no rows, so no counter could follow it.
                """
                CREATE FUNCTION scanbridge_refuse_truncate() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    RAISE EXCEPTION 'ScanBridge: delete the rows of % instead, so that every counter follows', TG_TABLE_NAME;
                END $$
                """,
            ] + followed("scanbridge_customers", key: "wallet_address") + followed("scanbridge_cards", key: "uid")),
        Migration(
            version: 4, name: "products",
            statements: [
                // As the counters' `product` table: '' is the store of a product of no store,
                // so that "no store" is one store for the unique keys. `gtin` is the barcode's
                // GTIN-14, worked out by the daemons (NULL when the barcode is no GTIN).
                """
                CREATE TABLE scanbridge_products (
                    id text PRIMARY KEY CHECK (id <> ''),
                    store_id text NOT NULL,
                    name text NOT NULL,
                    price_minor bigint NOT NULL CHECK (price_minor >= 0),
                    currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
                    sku text,
                    category text,
                    barcode text,
                    gtin text CHECK (gtin ~ '^[0-9]{14}$'),
                    track_stock boolean NOT NULL,
                    quantity bigint NOT NULL,
                    low_stock_threshold bigint NOT NULL CHECK (low_stock_threshold >= 0),
                    allow_negative_stock boolean NOT NULL,
                    parent_id text,
                    variant text,
                    created_at timestamptz NOT NULL DEFAULT now(),
                    updated_at timestamptz NOT NULL DEFAULT now(),
                    UNIQUE (gtin, store_id),
                    UNIQUE (sku, store_id)
                )
                """,
                "CREATE INDEX scanbridge_products_store ON scanbridge_products (store_id)",
            ] + followed("scanbridge_products", key: "id")),
        Migration(
            version: 5, name: "repair orders",
            statements: [
                // References ignore case, as at a counter. A change to a device is logged
                // under its order's id: a counter copies an order with its devices.
                """
                CREATE TABLE scanbridge_orders (
                    id text PRIMARY KEY CHECK (id <> ''),
                    reference text NOT NULL CHECK (reference <> ''),
                    status text NOT NULL,
                    client_id text,
                    client_name text,
                    created_at timestamptz NOT NULL
                )
                """,
                "CREATE UNIQUE INDEX scanbridge_orders_reference ON scanbridge_orders (lower(reference))",
                """
                CREATE TABLE scanbridge_order_devices (
                    id text PRIMARY KEY CHECK (id <> ''),
                    order_id text NOT NULL REFERENCES scanbridge_orders (id) ON DELETE CASCADE,
                    position integer NOT NULL,
                    make text,
                    model text,
                    serial text,
                    status text NOT NULL
                )
                """,
                "CREATE INDEX scanbridge_order_devices_order ON scanbridge_order_devices (order_id)",
            ] + followed("scanbridge_orders", key: "id") + followed("scanbridge_order_devices", key: "order_id")),
        Migration(
            version: 6, name: "order references ignore ASCII case only",
            statements: [
                // As SQLite's NOCASE at the counters: lower() of the database's own locale
                // folds per language (Turkish makes 'I' 'ı'), so the shop would hold two
                // references a counter takes for one.
                "DROP INDEX scanbridge_orders_reference",
                #"CREATE UNIQUE INDEX scanbridge_orders_reference ON scanbridge_orders (lower(reference COLLATE "C"))"#,
            ]),
        Migration(version: 7, name: "amounts in their currency's minor unit", statements: moneyMinorUnits),
        Migration(
            version: 8, name: "a log that stays small",
            statements: [
                // How far the change log has been compacted: a counter whose copy stands
                // before it missed changes no longer logged, and takes a snapshot instead.
                "ALTER TABLE scanbridge_shop ADD COLUMN compacted_through bigint NOT NULL DEFAULT 0",
                // The log is written by its triggers alone, with the owner's rights: a counter's
                // role reads it, and can neither forge a change (an id far ahead, a time no
                // stamp holds) nor take one out of commit order.
                """
                ALTER FUNCTION scanbridge_log_change() SECURITY DEFINER SET search_path = public, pg_temp
                """,
                "ALTER TABLE scanbridge_changes ADD CONSTRAINT scanbridge_changes_made_at_finite CHECK (isfinite(made_at))",
                // Run by any counter, with the owner's rights: a counter's role may add to the
                // log but not take from it. The newest change stays, so a counter's position
                // can always be told apart from a rewound log.
                """
                CREATE FUNCTION scanbridge_compact(change_days integer, event_days integer) RETURNS bigint
                LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $$
                DECLARE
                    through bigint;
                BEGIN
                    IF change_days > 0 THEN
                        SELECT max(id) INTO through FROM scanbridge_changes
                        WHERE made_at < now() - make_interval(days => change_days)
                            AND id < (SELECT max(id) FROM scanbridge_changes);
                        IF through IS NOT NULL THEN
                            DELETE FROM scanbridge_changes WHERE id <= through;
                            UPDATE scanbridge_shop SET compacted_through = greatest(compacted_through, through);
                        END IF;
                    END IF;
                    IF event_days > 0 THEN
                        DELETE FROM scan_events WHERE time < now() - make_interval(days => event_days);
                        -- An erasure is remembered for events copied late as long as scans are kept.
                        DELETE FROM erased_wallets WHERE erased_at < now() - make_interval(days => event_days);
                    END IF;
                    RETURN coalesce(through, 0);
                END $$
                """,
                "REVOKE EXECUTE ON FUNCTION scanbridge_compact(integer, integer) FROM PUBLIC",
            ]),
        Migration(
            version: 9, name: "cards that cannot be cloned",
            statements: [
                // What a card's tap must prove; the cards linked before are identified by UID,
                // as they were. A column of a followed table: its changes reach the counters.
                """
                ALTER TABLE scanbridge_cards ADD COLUMN security text NOT NULL DEFAULT 'uid'
                    CHECK (security IN ('uid', 'secure'))
                """,
                // The read counter of each tag's last accepted Secure Unique NFC message, shop-wide,
                // by the UID inside the message. Not followed: a counter asks here on each secure
                // tap (a conditional update), and a change announced per tap would wake every counter.
                """
                CREATE TABLE scanbridge_card_counters (
                    uid text PRIMARY KEY CHECK (uid ~ '^[0-9A-F]{14}$'),
                    read_counter bigint NOT NULL CHECK (read_counter BETWEEN 0 AND 16777215),
                    counter_id text NOT NULL,
                    accepted_at timestamptz NOT NULL DEFAULT now()
                )
                """,
            ]),
    ]

    /// `price_minor` held hundredths for every currency; from version 7 it holds the currency's
    /// ISO 4217 minor unit (yen for JPY, fils for KWD), each price keeping its value. A price
    /// that is not a whole amount of a currency without decimals (5.50 JPY) could keep none:
    /// the migration then changes nothing and names each such product, its price and the fix,
    /// and the counters, which try again, migrate once the shop has given each a whole price.
    /// The currencies are frozen (``Currency/migratedNoDecimals``), as a released migration is.
    static var moneyMinorUnits: [String] {
        let none = Currency.migratedNoDecimals.map { "'\($0)'" }.joined(separator: ", ")
        let three = Currency.migratedThreeDecimals.map { "'\($0)'" }.joined(separator: ", ")
        return [
            """
            DO $$
            DECLARE
                listed text;
                first record;
            BEGIN
                SELECT string_agg(format('%s %s.%s %s', id, price_minor / 100, lpad((price_minor % 100)::text, 2, '0'),
                    currency), ', ' ORDER BY id)
                INTO listed FROM scanbridge_products WHERE currency IN (\(none)) AND price_minor % 100 <> 0;
                IF listed IS NOT NULL THEN
                    SELECT id, price_minor, currency INTO first FROM scanbridge_products
                    WHERE currency IN (\(none)) AND price_minor % 100 <> 0 ORDER BY id LIMIT 1;
                    RAISE EXCEPTION USING
                        MESSAGE = 'ScanBridge cannot move prices to their currency''s own decimals (schema version 7), '
                            || 'and changed nothing: these are not a whole amount of a currency without decimals: '
                            || listed,
                        DETAIL = format('Give each a whole price, for example UPDATE scanbridge_products SET price_minor '
                            || '= %s WHERE id = %L (price_minor holds hundredths until this migration: %s is %s %s); '
                            || 'the counters migrate on their next try.', (first.price_minor / 100 + 1) * 100, first.id,
                            (first.price_minor / 100 + 1) * 100, first.price_minor / 100 + 1, first.currency);
                END IF;
            END $$
            """,
            "UPDATE scanbridge_products SET price_minor = price_minor * 10 WHERE currency IN (\(three))",
            "UPDATE scanbridge_products SET price_minor = price_minor / 100 WHERE currency IN (\(none))",
        ]
    }

    /// The triggers that make the counters follow a table: each statement waits for its turn
    /// on the change log before any row, each changed row's key (`key`, a column) is logged
    /// and announced, and a TRUNCATE, which names no rows, is refused. Part of released
    /// migrations: never edited, as they are not.
    static func followed(_ table: String, key: String) -> [String] {
        [
            """
            CREATE TRIGGER \(table)_turn BEFORE INSERT OR UPDATE OR DELETE ON \(table)
            FOR EACH STATEMENT EXECUTE FUNCTION scanbridge_take_turn()
            """,
            """
            CREATE TRIGGER \(table)_changed AFTER INSERT OR UPDATE OR DELETE ON \(table)
            FOR EACH ROW EXECUTE FUNCTION scanbridge_log_change('\(key)')
            """,
            """
            CREATE TRIGGER \(table)_truncated BEFORE TRUNCATE ON \(table)
            FOR EACH STATEMENT EXECUTE FUNCTION scanbridge_refuse_truncate()
            """,
        ]
    }

    /// The newest version this daemon knows.
    package static var latestVersion: Int { migrations.last?.version ?? 0 }

    package struct NewerSchema: Error, CustomStringConvertible {
        let found: Int
        package var description: String {
            "the shop's database has schema version \(found), newer than this daemon's \(SharedSchema.latestVersion): "
                + "upgrade ScanBridge on this counter"
        }
    }

    /// The tables a counter writes rows of, and those it only reads: what its role is
    /// granted (`grant(to:on:logger:)`), and nothing else (no TRUNCATE, no DDL).
    static let counterTables = [
        "scan_events", "scanbridge_customers", "scanbridge_cards", "scanbridge_products", "scanbridge_orders",
        "scanbridge_order_devices", "scanbridge_card_counters",
    ]
    /// Erasures are recorded (again), never taken back; only `scanbridge_compact` prunes them.
    static let keptTables = ["erased_wallets"]
    /// The change log is written by its triggers with the owner's rights, and compacted by
    /// `scanbridge_compact`.
    static let readOnlyTables = ["scanbridge_migrations", "scanbridge_shop", "scanbridge_changes"]
    /// The role every counter's role may be a member of, granted what a counter needs.
    package static let counterRole = "scanbridge_counter"

    /// The version of the schema, 0 for an empty database; read without touching anything.
    static func version(_ connection: PostgresConnection, logger: Logger) async throws -> Int {
        for try await exists in try await connection.query(
            "SELECT to_regclass('scanbridge_migrations') IS NOT NULL", logger: logger
        ).decode(Bool.self) where !exists {
            return 0
        }
        for try await version in try await connection.query(
            "SELECT coalesce(max(version), 0) FROM scanbridge_migrations", logger: logger
        ).decode(Int.self) {
            return version
        }
        return 0
    }

    /// Brings the schema up to date; returns the versions it applied. A schema already
    /// current is only read.
    @discardableResult
    package static func migrate(_ connection: PostgresConnection, logger: Logger) async throws -> [Int] {
        let found = try await version(connection, logger: logger)
        guard found != latestVersion else { return [] }
        guard found < latestVersion else { throw NewerSchema(found: found) }
        return try await connection.withTransaction(logger: logger) { connection in
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

extension SharedSchema {
    /// Grants `role` what a counter needs of the shop's tables, and no more: their rows
    /// (SELECT, INSERT, UPDATE, DELETE), erasures to add, the change log, the schema's version
    /// and the shop's identity to read, and the log's compaction to run; whatever it had
    /// before is taken back first. Run by the tables' owner after migrating.
    static func grant(to role: String, on connection: PostgresConnection, logger: Logger) async throws {
        let grantee = quoted(role)
        let every = counterTables + keptTables + readOnlyTables
        try await connection.query(
            PostgresQuery(unsafeSQL: "REVOKE ALL ON \(every.joined(separator: ", ")) FROM \(grantee)"), logger: logger)
        try await connection.query(
            PostgresQuery(unsafeSQL: "REVOKE ALL ON SEQUENCE scanbridge_changes_id_seq FROM \(grantee)"), logger: logger)
        try await connection.query(
            PostgresQuery(
                unsafeSQL: "GRANT SELECT, INSERT, UPDATE, DELETE ON \(counterTables.joined(separator: ", ")) TO \(grantee)"),
            logger: logger)
        try await connection.query(
            PostgresQuery(unsafeSQL: "GRANT SELECT, INSERT, UPDATE ON \(keptTables.joined(separator: ", ")) TO \(grantee)"),
            logger: logger)
        try await connection.query(
            PostgresQuery(unsafeSQL: "GRANT SELECT ON \(readOnlyTables.joined(separator: ", ")) TO \(grantee)"),
            logger: logger)
        try await connection.query(
            PostgresQuery(unsafeSQL: "GRANT EXECUTE ON FUNCTION scanbridge_compact(integer, integer) TO \(grantee)"),
            logger: logger)
    }

    /// Whether a role of that name exists.
    static func roleExists(_ role: String, on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        try await !connection.query("SELECT 1 FROM pg_roles WHERE rolname = \(role)", logger: logger).collect().isEmpty
    }

    /// `name` as an SQL identifier.
    static func quoted(_ name: String) -> String {
        "\"" + name.replacing("\"", with: "\"\"") + "\""
    }
}
