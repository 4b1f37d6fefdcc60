import Foundation
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeRPC
import ScanBridgeTesting
import Testing

/// The shop's database with two roles, as docs/shop-store.md creates them: the tables'
/// owner migrates them, through `scanbridge store migrate --owner`; a counter's role has
/// their rows and nothing more, so a compromised till cannot drop a trigger or a check.
@Suite(
    .heavy, .postgresCluster,
    .enabled(
        if: TestEnvironment.runs(unless: TestPostgres.unavailableReason), Comment(rawValue: TestPostgres.unavailableReason ?? ""))
)
struct SharedStoreRolesTests {
    @Test func theOwnerMigratesAndACountersRoleHasTheRowsAlone() async throws {
        let (server, database, owner, till) = try await Self.shopWithTwoRoles()
        func url(_ role: String) -> String { Self.url(server, database, as: role) }
        let daemon = try await startDaemon(
            ["--drivers", "mock", "--mock", "barcode:till", "--store", url(till)],
            config: SharedStoreTests.config("till-1"))
        let client = try await daemon.connect()
        let waiting = try await waitFor("the counter to say its role may not migrate the tables") {
            let store = try await client.call("bridge.hello")["store"]
            return store?["problem"]?.stringValue?.contains("may not change the tables") == true ? store : nil
        }
        #expect(waiting["problem"]?.stringValue?.contains("scanbridge store migrate --owner") == true)
        _ = try await client.inject(device: "mock:till", text: "4006381333931")

        let migrated = try await run("scanbridge", ["store", "migrate", "--owner", url(owner), "--socket", daemon.socketPath])
        #expect(migrated.status == 0, "\(migrated.err)")
        #expect(migrated.out.contains("as its owner"), "\(migrated.out)")
        try await server.waitForCopies(1, of: "till-1", database)
        _ = try await client.call(
            "products.upsert", ["product": ["id": "tea", "name": "Tea", "price": "2.50", "barcode": "5901234123457"]])
        #expect(try await client.call("bridge.hello")["store"]?["problem"] == nil)

        // What a compromised till could try with its role: every one refused by the server.
        for statement in [
            "DROP TRIGGER scanbridge_products_changed ON scanbridge_products",
            "ALTER TABLE scanbridge_products DROP CONSTRAINT scanbridge_products_price_minor_check",
            "TRUNCATE scan_events", "CREATE TABLE scanbridge_more (a int)",
            "INSERT INTO scanbridge_migrations (version, name) VALUES (999, 'x')",
            "INSERT INTO scanbridge_changes (id, table_name, key) VALUES (9000000000000000000, 'scanbridge_products', 'x')",
            "DELETE FROM scanbridge_changes", "DELETE FROM erased_wallets",
        ] {
            do {
                _ = try await server.psql("SET ROLE \"\(till)\"; \(statement)", database: database)
                Issue.record("a counter's role could run: \(statement)")
            } catch {
                let message = "\(error)"
                #expect(message.contains("permission denied") || message.contains("must be owner"), "\(message.prefix(300))")
            }
        }
        #expect(try await server.psql("SELECT count(*) FROM scanbridge_products", database: database) == "1")
    }

    @Test func aRoleThatIsNotTheOwnerIsToldSo() async throws {
        let (server, database, owner, till) = try await Self.shopWithTwoRoles()
        func url(_ role: String) -> String { Self.url(server, database, as: role) }
        let daemon = try await startDaemon(
            ["--drivers", "mock", "--store", url(till)], config: SharedStoreTests.config("till-1"))
        let client = try await daemon.connect()
        let refused = await expectRPCError(RPCError.invalidParams) {
            _ = try await client.call("store.migrate", ["owner": .string(url(till))])
        }
        #expect(refused?.message.contains("may not change the shop's tables either") == true, "\(refused?.message ?? "")")
        let elsewhere = await expectRPCError(RPCError.invalidParams) {
            _ = try await client.call(
                "store.migrate", ["owner": .string(url(owner).replacing("/\(database)?", with: "/postgres?"))])
        }
        #expect(elsewhere?.message.contains("must name the store this daemon uses") == true)
    }

    /// A database of the test's own that its owner role owns, and a counter's role beside it.
    private static func shopWithTwoRoles() async throws -> (TestPostgres, String, owner: String, till: String) {
        let (server, database) = try await TestPostgres.suiteDatabase()
        let (owner, till) = ("\(database)_owner", "\(database)_till")
        _ = try await server.psql(
            """
            CREATE ROLE "\(owner)" LOGIN; CREATE ROLE "\(till)" LOGIN;
            ALTER DATABASE "\(database)" OWNER TO "\(owner)";
            """, database: "postgres")
        return (server, database, owner, till)
    }

    private static func url(_ server: TestPostgres, _ database: String, as role: String) -> String {
        server.url(database: database).replacing("\(server.user)@", with: "\(role)@")
    }
}
