import Foundation
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeRPC
import ScanBridgeTesting
import Testing

/// A shop's database written past the daemons (a broken back office, a compromised till):
/// every counter leaves out the rows no client could have given, without reading the
/// oversized ones, says which, and goes on following the shop.
@Suite(
    .heavy, .postgresCluster,
    .enabled(
        if: TestEnvironment.runs(unless: TestPostgres.unavailableReason), Comment(rawValue: TestPostgres.unavailableReason ?? ""))
)
struct ShopRowsRefusedTests {
    @Test func rowsNoClientCouldGiveAreLeftOutUnreadAndTheCopyGoesOn() async throws {
        let (server, database, daemons) = try await ShopReplicaTests.shop(counters: ["till-1", "till-2"])
        defer { withExtendedLifetime(server) {} }
        let (first, second) = (try await daemons[0].connect(), try await daemons[1].connect())
        _ = try await first.call(
            "products.upsert", ["product": ["id": "tea", "name": "Tea", "price": "2.50", "barcode": "5901234123457"]])
        try await found("Tea", by: "5901234123457", at: second)

        // 200 MB in one name, a control character, an order of 300 devices, a key no row can have.
        _ = try await server.psql(
            """
            UPDATE scanbridge_products SET name = repeat('x', 200000000) WHERE id = 'tea';
            INSERT INTO scanbridge_products (id, store_id, name, price_minor, currency, barcode, gtin, track_stock,
                quantity, low_stock_threshold, allow_negative_stock)
            VALUES ('bell', '', E'Bell\\x07', 100, 'GBP', '4006381333931', '04006381333931', false, 0, 0, false);
            INSERT INTO scanbridge_orders (id, reference, status, created_at) VALUES ('ord_9', 'RM-9', 'open', now());
            INSERT INTO scanbridge_order_devices (id, order_id, position, status)
            SELECT 'dev_' || n, 'ord_9', n, 'received' FROM generate_series(1, 300) AS n;
            INSERT INTO scanbridge_changes (table_name, key) VALUES ('scanbridge_products', repeat('k', 100000));
            """, database: database)
        _ = try await first.call(
            "products.upsert", ["product": ["id": "cake", "name": "Cake", "price": "3.00", "barcode": "96385074"]])
        try await found("Cake", by: "96385074", at: second)

        for client in [first, second] {
            let store = try await waitFor("the counter's copy to name every row left out") {
                let store = try await client.call("bridge.hello")["store"]
                return store?["problem"]?.stringValue?.contains("4 rows") == true ? store : nil
            }
            let problem = store["problem"]?.stringValue ?? ""
            #expect(problem.contains("4 rows of the shop's store are left out"), "\(problem)")
            #expect(problem.contains("scanbridge_products tea: its name is longer than 1024 bytes"), "\(problem)")
            #expect(store["state"] == "ok")
        }
        // The rows left out are as each counter held them: the tea as it was, no bell, no order.
        try await found("Tea", by: "5901234123457", at: second)
        #expect(try await second.call("products.lookup", ["code": "4006381333931"])["status"] == "not_found")
        #expect(try await second.call("orders.lookup", ["code": "RM-9"])["status"] == "not_found")
        let log = try String(contentsOfFile: daemons[1].logPath, encoding: .utf8)
        #expect(log.contains("control characters") && log.contains("more than 256"), "the log names each row and why")
        // The 200 MB were never read: nowhere near them in memory.
        let peak = ProcessStat.megabytes("VmHWM", of: try #require(daemons[1].pid))
        #expect(peak < 150, "peak RSS \(peak) MB")

        // Mended by the back office: the row comes in, and is no longer named.
        _ = try await server.psql("UPDATE scanbridge_products SET name = 'Green tea' WHERE id = 'tea'", database: database)
        try await found("Green tea", by: "5901234123457", at: second)
        let problem = try await waitFor("the mended row to be no longer named") {
            let problem = try await second.call("bridge.hello")["store"]?["problem"]?.stringValue ?? ""
            return problem.contains("tea") ? nil : problem
        }
        #expect(problem.contains("3 rows"), "\(problem)")
    }

    @Test func anErasureDeletesACopyPastAnyCountersBoundsWithoutReadingIt() async throws {
        let (server, database, daemons) = try await ShopReplicaTests.shop(counters: ["till-1"])
        defer { withExtendedLifetime(server) {} }
        let client = try await daemons[0].connect()
        _ = try await client.call("customers.upsert", ["customer": ["walletAddress": "rBob", "name": "Bob"]])
        // 200 MB in a copy no counter journals, carrying the customer.
        _ = try await server.psql(
            """
            INSERT INTO scan_events (counter_id, seq, time, kind, device, event) VALUES ('rogue', 1, now(), 'nfc', 'x',
                jsonb_build_object('resolution', jsonb_build_object('customer',
                    jsonb_build_object('walletAddress', 'rBob', 'name', repeat('B', 200000000)))))
            """, database: database)
        _ = try await client.call("customers.erase", ["walletAddress": "rBob"])
        #expect(try await server.psql("SELECT count(*) FROM scan_events WHERE counter_id = 'rogue'", database: database) == "0")
        let peak = ProcessStat.megabytes("VmHWM", of: try #require(daemons[0].pid))
        #expect(peak < 150, "peak RSS \(peak) MB")
    }

    private func found(_ name: String, by code: String, at client: ScanBridgeClient) async throws {
        _ = try await waitFor("\(name) to be found at a counter") {
            let answer = try await client.call("products.lookup", ["code": .string(code)])
            return answer["product"]?["name"]?.stringValue == name ? answer : nil
        }
    }
}
