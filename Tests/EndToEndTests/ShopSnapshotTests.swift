import Foundation
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeRPC
import ScanBridgeTesting
import Testing

/// A counter that starts empty, or comes back after the shop's change log was compacted
/// past it, takes a snapshot of the shop's rows: its copy ends as the copy of a counter that
/// followed every change.
@Suite(
    .heavy, .postgresCluster,
    .enabled(
        if: TestEnvironment.runs(unless: TestPostgres.unavailableReason), Comment(rawValue: TestPostgres.unavailableReason ?? ""))
)
struct ShopSnapshotTests {
    @Test func aSnapshotCopyEqualsTheCopyThatFollowedEveryChange() async throws {
        let (server, database, daemons) = try await ShopReplicaTests.shop(counters: ["writer", "follower", "away"])
        defer { withExtendedLifetime(server) {} }
        let writer = try await daemons[0].connect()
        try await history(writer, server, database, round: 1)
        try await waitForCopy(of: [daemons[2]], server, database)
        _ = try await daemons[2].stop()
        try await history(writer, server, database, round: 2)
        // Every change so far but the newest (which compaction keeps) is older than the log keeps.
        _ = try await server.psql(
            """
            UPDATE scanbridge_changes SET made_at = now() - interval '40 days'
            WHERE id < (SELECT max(id) FROM scanbridge_changes);
            SELECT scanbridge_compact(30, 0);
            """, database: database)
        try await history(writer, server, database, round: 3)

        let fresh = try await startDaemon(
            ["--drivers", "mock", "--store", server.url(database: database)], config: SharedStoreTests.config("fresh"))
        let away = try DaemonHarness.reusing(
            daemons[2],
            arguments: [
                "--drivers", "mock", "--store", server.url(database: database),
                "--config", daemons[2].directory.appendingPathComponent("scanbridge.yaml").path,
            ])
        try await away.start()
        try await waitForCopy(of: [daemons[1], away, fresh], server, database)
        let followed = try await copy(in: daemons[1])
        #expect(followed.contains("prod_2_7|") && !followed.contains("prod_1_3|"), "the history is there")
        #expect(try await copy(in: away) == followed, "a copy older than the log, by snapshot and sweep")
        #expect(try await copy(in: fresh) == followed, "an empty copy, by snapshot")
        for daemon in [away, fresh] {
            let log = try String(contentsOfFile: daemon.logPath, encoding: .utf8)
            #expect(log.contains("copied a snapshot of the shop's store"))
        }
    }

    /// Products, customers, cards and orders made, changed and deleted, at a counter and by hand.
    private func history(_ client: ScanBridgeClient, _ server: TestPostgres, _ database: String, round: Int)
        async throws
    {
        let products: [JSONValue] = (1...8).map { index in
            [
                "id": .string("prod_\(round)_\(index)"), "name": .string("Item \(round).\(index)"), "price": "1.25",
                "sku": .string("SKU-\(round)-\(index)"),
            ]
        }
        _ = try await client.call("products.upsert", ["products": .array(products)])
        _ = try await client.call("products.delete", ["id": .string("prod_\(round)_3")])
        _ = try await client.call(
            "products.upsert",
            [
                "product": [
                    "id": .string("prod_\(round)_4"), "name": "Renamed", "price": "9.99",
                    "barcode": .string(["5901234123457", "4006381333931", "96385074"][round - 1]),
                ]
            ])
        if round > 1 { _ = try await client.call("products.delete", ["id": .string("prod_\(round - 1)_5")]) }
        for index in 1...3 {
            let uid = String(format: "04%012X", round * 16 + index)
            _ = try await client.call("cards.link", ["uid": .string(uid), "walletAddress": .string("rW\(round)\(index)")])
        }
        _ = try await client.call(
            "cards.setStatus", ["uid": .string(String(format: "04%012X", round * 16 + 2)), "status": "blocked"])
        _ = try await client.call("cards.unlink", ["uid": .string(String(format: "04%012X", round * 16 + 3))])
        _ = try await client.call(
            "orders.upsert",
            [
                "order": [
                    "id": .string("ord_\(round)"), "reference": .string("RM-\(round)"),
                    "devices": [["id": .string("dev_\(round)"), "serial": "S1"]],
                ]
            ])
        if round > 1 {
            _ = try await server.psql("DELETE FROM scanbridge_orders WHERE id = 'ord_\(round - 1)'", database: database)
        }
    }

    /// Waits until each counter's copy stands at the shop's newest change.
    private func waitForCopy(of daemons: [DaemonHarness], _ server: TestPostgres, _ database: String) async throws {
        let newest = try await server.psql("SELECT max(id) FROM scanbridge_changes", database: database)
        for daemon in daemons {
            do {
                try await waitFor("a counter's copy to reach change \(newest)", timeout: .seconds(60)) {
                    try await sqlite(daemon, "SELECT lastChange FROM shop_replica") == newest ? () : nil
                }
            } catch {
                let log = (try? String(contentsOfFile: daemon.logPath, encoding: .utf8)) ?? ""
                Issue.record(
                    "the counter's log says: \(log.split(separator: "\n").filter { $0.contains("error") || $0.contains("wait") }.prefix(8).joined(separator: "\n"))"
                )
                throw error
            }
        }
    }

    /// The counter's copy of the shop's rows, as text, without the times it wrote them.
    private func copy(in daemon: DaemonHarness) async throws -> String {
        try await sqlite(
            daemon,
            """
            SELECT id, storeId, name, priceMinor, currency, sku, barcode, gtin, quantity FROM product ORDER BY id;
            SELECT walletAddress, name, email, firstCardLinkedAtMs, createdAtMs FROM customer ORDER BY walletAddress;
            SELECT uid, walletAddress, cardName, status, createdAtMs FROM card ORDER BY uid;
            SELECT id, reference, status, createdAtMs FROM repair_order ORDER BY id;
            SELECT id, orderId, position, serial, status FROM repair_device ORDER BY id;
            """)
    }

    private func sqlite(_ daemon: DaemonHarness, _ sql: String) async throws -> String {
        let result = try await Spawned(command: ["/usr/bin/sqlite3", "-readonly", daemon.databasePath, sql])
            .finish(timeout: .seconds(60))
        guard result.status == 0 else { throw CommandFailed(description: result.err) }
        return result.out.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    struct CommandFailed: Error, CustomStringConvertible {
        let description: String
    }
}
