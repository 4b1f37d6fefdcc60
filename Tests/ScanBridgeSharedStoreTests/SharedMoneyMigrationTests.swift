import Foundation
import Logging
import PostgresNIO
import ScanBridgeTesting
import Testing

@testable import ScanBridgeSharedStore

/// The shop's store's migration 7: `price_minor` from hundredths of every currency to each
/// currency's own minor unit, on a real PostgreSQL server, from a database as version 6 left it.
@Suite(
    .enabled(
        if: TestEnvironment.runs(unless: TestPostgres.unavailableReason), Comment(rawValue: TestPostgres.unavailableReason ?? ""))
)
struct SharedMoneyMigrationTests {
    let logger = Logger(label: "test")

    struct NotASocket: Error, CustomStringConvertible {
        let location: String
        var description: String { "the test server is reached through its socket: \(location)" }
    }

    /// Runs `body` on a connection to a new database of `server`.
    private func withShop<T: Sendable>(
        _ server: TestPostgres, _ body: @Sendable (PostgresConnection, String) async throws -> T
    ) async throws -> T {
        let database = "shop_\(UUID().uuidString.prefix(8).lowercased())"
        try await server.createDatabase(database)
        let location = try SharedStoreLocation(url: server.url(database: database))
        guard case .unixSocket(let path, _) = location.endpoint else {
            throw NotASocket(location: "\(location)")
        }
        let client = PostgresClient(
            configuration: .init(unixSocketPath: path, username: server.user, password: nil, database: database))
        let running = Task { await client.run() }
        defer { running.cancel() }
        return try await client.withConnection { connection in try await body(connection, database) }
    }

    /// The schema as the daemons of version 6 left it: the released migrations, in order.
    private func migrateToVersion6(_ connection: PostgresConnection) async throws {
        try await connection.query(
            "CREATE TABLE scanbridge_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())",
            logger: logger)
        for migration in SharedSchema.migrations where migration.version <= 6 {
            for statement in migration.statements {
                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
            }
            try await connection.query(
                "INSERT INTO scanbridge_migrations (version, name) VALUES (\(migration.version), \(migration.name))",
                logger: logger)
        }
    }

    private func insert(_ products: [(id: String, hundredths: Int64, currency: String)]) -> String {
        products.map { product in
            """
            INSERT INTO scanbridge_products (id, store_id, name, price_minor, currency, track_stock, quantity,
                low_stock_threshold, allow_negative_stock)
            VALUES ('\(product.id)', '', 'Product \(product.id)', \(product.hundredths), '\(product.currency)', false, 0, 0, false);
            """
        }.joined(separator: "\n")
    }

    private func prices(_ server: TestPostgres, _ database: String) async throws -> [String] {
        try await server.psql("SELECT id, price_minor FROM scanbridge_products ORDER BY id", database: database)
            .split(separator: "\n").map(String.init)
    }

    @Test("each price keeps its value, and the counters are told of every price that changed")
    func convertsEveryCurrency() async throws {
        let server = try await TestPostgres()
        try await withShop(server) { connection, database in
            try await migrateToVersion6(connection)
            _ = try await server.psql(
                insert([
                    ("gbp", 350, "GBP"), ("jpy", 50000, "JPY"), ("kwd", 125, "KWD"), ("clp", 100_000, "CLP"),
                    ("ang", 199, "ANG"), ("big", 999_999_999_999, "OMR"),
                ]), database: database)
            let logged = "SELECT count(*) FROM scanbridge_changes WHERE table_name = 'scanbridge_products'"
            let before = try await server.psql(logged, database: database)

            #expect(try await SharedSchema.migrate(connection, logger: logger) == [7, 8, 9])
            #expect(
                try await prices(server, database) == [
                    "ang|199", "big|9999999999990", "clp|1000", "gbp|350", "jpy|500", "kwd|1250",
                ])
            #expect(Int(try await server.psql(logged, database: database)) == Int(before)! + 4, "big, clp, jpy and kwd")
            #expect(try await SharedSchema.migrate(connection, logger: logger) == [], "once")
        }
    }

    @Test("a fraction of a currency without decimals stops the migration, naming every such product and the fix")
    func refusesAFractionOfAYen() async throws {
        let server = try await TestPostgres()
        try await withShop(server) { connection, database in
            try await migrateToVersion6(connection)
            _ = try await server.psql(
                insert([("tea", 550, "JPY"), ("gum", 1, "KRW"), ("rice", 60000, "JPY"), ("dates", 125, "KWD")]),
                database: database)

            let error = await #expect(throws: (any Error).self) { try await SharedSchema.migrate(connection, logger: logger) }
            // What a counter logs and `doctor` shows of it.
            let reason = error.map(SharedStoreError.reason) ?? ""
            #expect(
                reason.contains("these are not a whole amount of a currency without decimals: gum 0.01 KRW, tea 5.50 JPY"),
                "\(reason)")
            #expect(reason.contains("UPDATE scanbridge_products SET price_minor = 100 WHERE id = 'gum'"), "\(reason)")
            #expect(reason.contains("changed nothing"), "\(reason)")
            #expect(try await prices(server, database) == ["dates|125", "gum|1", "rice|60000", "tea|550"])
            #expect(try await server.psql("SELECT max(version) FROM scanbridge_migrations", database: database) == "6")

            // The shop gives each a whole price; the next try migrates.
            _ = try await server.psql(
                "UPDATE scanbridge_products SET price_minor = 600 WHERE id = 'tea'; "
                    + "UPDATE scanbridge_products SET price_minor = 100 WHERE id = 'gum'", database: database)
            #expect(try await SharedSchema.migrate(connection, logger: logger) == [7, 8, 9])
            #expect(try await prices(server, database) == ["dates|1250", "gum|1", "rice|600", "tea|6"])
        }
    }
}
