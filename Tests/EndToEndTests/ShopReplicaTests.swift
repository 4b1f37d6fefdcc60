import Foundation
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeRPC
import ScanBridgeTesting
import Testing

/// Cards and customers shared by a shop's counters through a real PostgreSQL server: a card
/// linked at one counter is identified at the others, linking is atomic shop-wide, and taps
/// go on from each counter's copy while the server is away. A database per test on the
/// suite's cluster, as `SharedStoreTests`.
@Suite(
    .heavy, .postgresCluster,
    .enabled(
        if: TestEnvironment.runs(unless: TestPostgres.unavailableReason), Comment(rawValue: TestPostgres.unavailableReason ?? ""))
)
struct ShopReplicaTests {
    static let uid = "04A1B2C3D4E5F6"

    /// Counters of an empty database of the test's own: on the suite's cluster, or on a cluster
    /// of its own for a test that stops the server.
    static func shop(counters names: [String], ownServer: Bool = false) async throws
        -> (TestPostgres, String, [DaemonHarness])
    {
        let (server, database) = try await ownServer ? TestPostgres.privateDatabase() : TestPostgres.suiteDatabase()
        var daemons: [DaemonHarness] = []
        for name in names {
            daemons.append(
                try await startDaemon(
                    [
                        "--drivers", "mock", "--mock", "nfc:door", "--mock", "barcode:till", "--store",
                        server.url(database: database),
                    ],
                    config: SharedStoreTests.config(name)))
        }
        return (server, database, daemons)
    }

    @Test func aCardLinkedAtOneCounterIsIdentifiedAtTheOthers() async throws {
        // The server lives as long as the test: it is stopped when it goes.
        let (server, _, daemons) = try await Self.shop(counters: ["till-1", "till-2", "bench"])
        defer { withExtendedLifetime(server) {} }
        let first = try await daemons[0].connect()
        _ = try await first.call("customers.upsert", ["customer": ["walletAddress": "rAda", "name": "Ada"]])
        let linked = try await first.call("cards.link", ["uid": .string(Self.uid), "walletAddress": "rAda"])
        #expect(linked["card"]?["walletAddress"] == "rAda")
        #expect(try await first.inject(device: "mock:door", uid: Self.uid).resolution.status == "identified")
        for daemon in daemons.dropFirst() {
            let client = try await daemon.connect()
            let event = try await waitFor("the card to be identified at another counter") {
                let event = try await client.inject(device: "mock:door", uid: Self.uid)
                return event.resolution.status == "identified" ? event : nil
            }
            #expect(event.resolution.details["customer"]?["name"] == "Ada")
        }
    }

    @Test func twoCountersLinkingOneCardAtOnceGetOneLinkAndOneConflict() async throws {
        let (server, _, daemons) = try await Self.shop(counters: ["till-1", "till-2"])
        defer { withExtendedLifetime(server) {} }
        let clients = [try await daemons[0].connect(), try await daemons[1].connect()]
        for round in 0..<5 {
            let uid = "04A1B2C3D4E5\(String(format: "%02X", round))"
            let outcomes = await withTaskGroup(of: String.self) { group in
                for (index, client) in clients.enumerated() {
                    group.addTask {
                        do {
                            _ = try await client.call(
                                "cards.link", ["uid": .string(uid), "walletAddress": .string("rWallet\(index)")])
                            return "linked"
                        } catch let error as RPCError where error.code == RPCError.conflict {
                            return "conflict"
                        } catch {
                            return "\(error)"
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.sorted() == ["conflict", "linked"], "round \(round)")
        }
    }

    @Test func scansGoOnFromTheCopyWhileTheStoreIsAwayAndChangesWaitForIt() async throws {
        let (server, database, daemons) = try await Self.shop(counters: ["till-1", "till-2"], ownServer: true)
        let first = try await daemons[0].connect()
        let second = try await daemons[1].connect()
        _ = try await first.call("cards.link", ["uid": .string(Self.uid), "walletAddress": "rAda"])
        _ = try await first.call(
            "products.upsert", ["product": ["id": "tea", "name": "Tea", "price": .double(2.5), "barcode": "5901234123457"]])
        _ = try await waitFor("the card and the product to reach the second counter") {
            let event = try await second.inject(device: "mock:door", uid: Self.uid)
            let found = try await second.call("products.lookup", ["code": "5901234123457"])["status"] == "found"
            return event.resolution.status == "identified" && found ? event : nil
        }

        try await server.stop()
        var store: JSONValue?
        do {
            _ = try await waitFor("the second counter to say the store is offline", timeout: .seconds(60)) {
                store = try await second.call("bridge.hello")["store"]
                return store?["state"] == "offline" ? () : nil
            }
        } catch {
            // What the copy last said, so that a failure here tells where it waits.
            let said = daemons[1].log.split(separator: "\n").filter { $0.contains("store") }.suffix(20)
            Issue.record("bridge.hello's store: \(store.map { "\($0)" } ?? "none"); its log:\n\(said.joined(separator: "\n"))")
            throw error
        }
        let offline = try await waitFor("a tap to be identified from the copy, offline") {
            let event = try await second.inject(device: "mock:door", uid: Self.uid)
            return event.resolution.details["offline"] == .bool(true) ? event : nil
        }
        #expect(offline.resolution.status == "identified")
        let scan = try await second.inject(device: "mock:till", text: "5901234123457")
        #expect(scan.resolution.status == "found" && scan.resolution.details["offline"] == .bool(true), "\(scan)")
        let refused = await expectRPCError(RPCError.unavailable) {
            _ = try await second.call("cards.link", ["uid": "04FFFFFFFFFFFF", "walletAddress": "rBob"])
        }
        #expect(refused?.message.contains("the shop's store postgresql://") == true, "\(refused?.message ?? "")")
        await expectRPCError(RPCError.unavailable) {
            _ = try await second.call("cards.setStatus", ["uid": .string(Self.uid), "status": "blocked"])
        }
        await expectRPCError(RPCError.unavailable) {
            _ = try await second.call("products.upsert", ["product": ["id": "cake", "name": "Cake", "price": .double(3)]])
        }

        try await server.start()
        _ = try await waitFor("a link to go through once the store is back", timeout: .seconds(60)) {
            try? await second.call("cards.link", ["uid": "04FFFFFFFFFFFF", "walletAddress": "rBob"])
        }
        _ = try await waitFor("the new card to reach the first counter") {
            let event = try await first.inject(device: "mock:door", uid: "04FFFFFFFFFFFF")
            return event.resolution.status == "identified" ? event : nil
        }
        // Every event of each counter, those of the outage too, once in scan_events.
        for (client, name) in [(first, "till-1"), (second, "till-2")] {
            let head = try #require(try await client.call("events.recent", ["limit": 1])["events"]?[0]?["seq"]?.intValue)
            try await server.waitForCopies(Int(head), of: name, database)
            try await server.expectTheJournal(of: client, database, counter: name)
        }
    }

    @Test func aChangeMadeInTheDatabaseByHandReachesEveryCounter() async throws {
        let (server, database, daemons) = try await Self.shop(counters: ["till-1", "till-2"])
        let first = try await daemons[0].connect()
        let second = try await daemons[1].connect()
        _ = try await first.call("cards.link", ["uid": .string(Self.uid), "walletAddress": "rAda"])
        _ = try await server.psql("UPDATE scanbridge_cards SET status = 'blocked' WHERE uid = '\(Self.uid)'", database: database)
        for client in [first, second] {
            _ = try await waitFor("the back office's block to reach a counter") {
                let event = try await client.inject(device: "mock:door", uid: Self.uid)
                return event.resolution.status == "blocked" ? event : nil
            }
        }
        _ = try await server.psql("DELETE FROM scanbridge_cards WHERE uid = '\(Self.uid)'", database: database)
        _ = try await waitFor("the back office's unlink to reach a counter") {
            let event = try await second.inject(device: "mock:door", uid: Self.uid)
            return event.resolution.status == "unknown" ? event : nil
        }
    }

    @Test func aCounterStoppedWhileTheShopChangedCatchesUpFromWhereItWas() async throws {
        let (server, database, daemons) = try await Self.shop(counters: ["till-1", "till-2"])
        let first = try await daemons[0].connect()
        let second = try await daemons[1].connect()
        _ = try await first.call("cards.link", ["uid": .string(Self.uid), "walletAddress": "rAda"])
        _ = try await waitFor("the card to reach the second counter") {
            try await second.inject(device: "mock:door", uid: Self.uid).resolution.status == "identified" ? () : nil
        }
        _ = try await daemons[1].stop()

        // While the second counter is stopped: a card linked, one removed by hand, one blocked.
        _ = try await first.call("cards.link", ["uid": "04000000000001", "walletAddress": "rBob"])
        _ = try await first.call("cards.link", ["uid": "04000000000002", "walletAddress": "rBob"])
        _ = try await first.call("cards.setStatus", ["uid": "04000000000002", "status": "blocked"])
        _ = try await server.psql("DELETE FROM scanbridge_cards WHERE uid = '\(Self.uid)'", database: database)
        do {
            _ = try await server.psql("TRUNCATE scanbridge_cards CASCADE", database: database)
            Issue.record("a TRUNCATE, which names no rows for the counters to follow, went through")
        } catch {
            #expect("\(error)".contains("delete the rows of scanbridge_cards instead"), "\(error)")
        }

        let again = try DaemonHarness.reusing(
            daemons[1],
            arguments: [
                "--drivers", "mock", "--mock", "nfc:door", "--store", server.url(database: database),
                "--config", daemons[1].directory.appendingPathComponent("scanbridge.yaml").path,
            ])
        try await again.start()
        let back = try await again.connect()
        _ = try await waitFor("the second counter to catch up") {
            try await back.inject(device: "mock:door", uid: "04000000000002").resolution.status == "blocked" ? () : nil
        }
        #expect(try await back.inject(device: "mock:door", uid: "04000000000001").resolution.status == "identified")
        #expect(try await back.inject(device: "mock:door", uid: Self.uid).resolution.status == "unknown")
    }

    /// A counter used alone before the shop's store: its own cards and customers are kept,
    /// and the shop's not copied over them, until `store.migrate` moves them there.
    private func counterWithItsOwnCard(joining server: TestPostgres, _ database: String) async throws -> DaemonHarness {
        let alone = try await startDaemon(["--drivers", "mock", "--mock", "nfc:door"])
        let client = try await alone.connect()
        _ = try await client.call("customers.upsert", ["customer": ["walletAddress": "rAda", "name": "Ada"]])
        _ = try await client.call("cards.link", ["uid": .string(Self.uid), "walletAddress": "rAda"])
        _ = try await client.call(
            "products.upsert", ["product": ["id": "tea", "name": "Tea", "price": .double(2.5), "barcode": "5901234123457"]])
        _ = try await client.call("orders.upsert", ["order": OrdersEndToEndTests.order])
        _ = try await alone.stop()
        let shared = try DaemonHarness.reusing(
            alone, arguments: ["--drivers", "mock", "--mock", "nfc:door", "--store", server.url(database: database)])
        try await shared.start()
        return shared
    }

    @Test func aCountersOwnCardsWaitToBeMovedThenEveryCounterHasThem() async throws {
        let (server, database, daemons) = try await Self.shop(counters: ["till-1"])
        let joining = try await counterWithItsOwnCard(joining: server, database)
        let client = try await joining.connect()
        let problem = try await waitFor("the counter to say its own cards wait to be moved") {
            try await client.call("bridge.hello")["store"]?["problem"]?.stringValue
        }
        #expect(problem.contains("scanbridge store migrate"), "\(problem)")
        #expect(try await client.inject(device: "mock:door", uid: Self.uid).resolution.status == "identified")
        await expectRPCError(RPCError.unavailable) {
            _ = try await client.call("cards.link", ["uid": "04000000000001", "walletAddress": "rAda"])
        }
        await expectRPCError(RPCError.invalidParams) {
            _ = try await client.call("store.migrate", ["to": "postgresql://someone@elsewhere/shop"])
        }

        let moved = try await run(
            "scanbridge", ["store", "migrate", "--to", server.url(database: database), "--socket", joining.socketPath])
        #expect(moved.status == 0, "\(moved.err)")
        #expect(moved.out.hasPrefix("moved 1 product, 1 customer, 1 card, 1 order to the shop's store"), "\(moved.out)")
        #expect(try await client.call("bridge.hello")["store"]?["problem"] == nil)
        let other = try await daemons[0].connect()
        let event = try await waitFor("the moved card to reach the other counter") {
            let event = try await other.inject(device: "mock:door", uid: Self.uid)
            return event.resolution.status == "identified" ? event : nil
        }
        #expect(event.resolution.details["customer"]?["name"] == "Ada")
        #expect(try await other.call("products.lookup", ["code": "5901234123457"])["product"]?["name"] == "Tea")
        #expect(try await other.call("orders.lookup", ["code": "DEVICE:dev_55"])["order"]?["id"] == "ord_1001")
        // And the moved counter follows the shop from then on.
        _ = try await other.call("cards.link", ["uid": "04000000000001", "walletAddress": "rBob"])
        _ = try await waitFor("the other counter's card to reach the moved one") {
            try await client.inject(device: "mock:door", uid: "04000000000001").resolution.status == "identified" ? () : nil
        }
    }

    @Test func aMoveThatWouldLoseALinkMovesNothing() async throws {
        let (server, database, daemons) = try await Self.shop(counters: ["till-1"])
        let other = try await daemons[0].connect()
        _ = try await other.call("cards.link", ["uid": .string(Self.uid), "walletAddress": "rBob"])
        let joining = try await counterWithItsOwnCard(joining: server, database)
        let client = try await joining.connect()
        let refused = await expectRPCError(RPCError.conflict) {
            _ = try await client.call("store.migrate")
        }
        #expect(refused?.message.contains("04:A1:B2:C3:D4:E5:F6") == true, "\(refused?.message ?? "")")
        let customers = try await server.psql(
            "SELECT count(*) FROM scanbridge_customers WHERE wallet_address = 'rAda'", database: database)
        #expect(customers.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "nothing was moved")
        #expect(try await client.inject(device: "mock:door", uid: Self.uid).resolution.details["customer"]?["name"] == "Ada")
    }

    @Test func aProductUpsertedAtOneCounterIsFoundAtTheOthersAndAnImportReplacesTheShopsCatalog() async throws {
        let (server, database, daemons) = try await Self.shop(counters: ["till-1", "till-2", "bench"])
        defer { withExtendedLifetime(server) {} }
        let first = try await daemons[0].connect()
        _ = try await first.call(
            "products.upsert", ["product": ["id": "tea", "name": "Tea", "price": .double(2.5), "barcode": "5901234123457"]])
        for daemon in daemons.dropFirst() {
            let client = try await daemon.connect()
            let found = try await waitFor("the product to be found at another counter") {
                let answer = try await client.call("products.lookup", ["code": "5901234123457"])
                return answer["status"] == "found" ? .some(answer) : .none
            }
            #expect(found["product"]?["name"] == "Tea")
        }
        // One GTIN, one product per store, shop-wide.
        let second = try await daemons[1].connect()
        let taken = await expectRPCError(RPCError.conflict) {
            _ = try await second.call(
                "products.upsert",
                ["product": ["id": "other", "name": "Other", "price": .double(1), "barcode": "5901234123457"]])
        }
        #expect(taken?.message.contains("05901234123457") == true, "\(taken?.message ?? "")")
        #expect(taken?.data?["field"] == "product.barcode", "named as a counter's own catalog names it")

        // The bench replaces the shop's catalog with a file: every counter follows.
        var file = try daemons[2].write("catalog.csv", "id,name,price,barcode\ncoffee,Coffee,3.00,4006381333931\n")
        let imported = try await run("scanbridge", ["products", "import", file, "--prune", "--socket", daemons[2].socketPath])
        #expect(imported.status == 0, "\(imported.err)")
        _ = try await waitFor("the replaced catalog to reach the first counter") {
            try await first.call("products.lookup", ["code": "5901234123457"])["status"] == "not_found" ? () : nil
        }
        #expect(try await first.call("products.lookup", ["code": "4006381333931"])["product"]?["name"] == "Coffee")
        #expect(try await first.call("products.list", [:])["products"]?.arrayValue?.count == 1)
        // A new id may take the barcode of a product the same prune deletes.
        let renamed = try daemons[2].write("renamed.csv", "id,name,price,barcode\ncoffee-2,Coffee,3.00,4006381333931\n")
        let takeover = try await run("scanbridge", ["products", "import", renamed, "--prune", "--socket", daemons[2].socketPath])
        #expect(takeover.status == 0, "\(takeover.err)")
        _ = try await waitFor("the renamed product to reach the first counter") {
            try await first.call("products.lookup", ["code": "4006381333931"])["product"]?["id"] == "coffee-2" ? () : nil
        }
        // A GTIN typed by hand is the one the counters use, even one that breaks the shop's
        // own rule: no counter's copy stalls on it.
        _ = try await server.psql(
            "INSERT INTO scanbridge_products (id, store_id, name, price_minor, currency, barcode, gtin, track_stock, "
                + "quantity, low_stock_threshold, allow_negative_stock) VALUES ('hand', '', 'By hand', 100, 'EUR', "
                + "'4006381333931', NULL, false, 0, 0, false)",
            database: database)
        _ = try await first.call(
            "products.upsert", ["product": ["id": "after", "name": "After", "price": .double(1), "sku": "AFTER-1"]])
        _ = try await waitFor("a product written after the hand-typed one to reach the second counter") {
            try await second.call("products.lookup", ["code": "AFTER-1"])["status"] == "found" ? () : nil
        }
        #expect(try await second.call("bridge.hello")["store"]?["problem"] == nil)
        #expect(try await second.call("products.lookup", ["code": "4006381333931"])["product"]?["id"] == "coffee-2")
        _ = try await server.psql("DELETE FROM scanbridge_products WHERE id IN ('hand', 'after')", database: database)
        file = renamed

        // The same file again changes nothing, so no counter has anything to copy.
        let logged = try await server.psql("SELECT count(*) FROM scanbridge_changes", database: database)
        let again = try await run("scanbridge", ["products", "import", file, "--prune", "--socket", daemons[2].socketPath])
        #expect(again.status == 0, "\(again.err)")
        #expect(try await server.psql("SELECT count(*) FROM scanbridge_changes", database: database) == logged)
    }

    @Test func aCounterRunWithoutTheShopsStoreAndOneRestoredFromABackupWaitForAMove() async throws {
        let (server, database, daemons) = try await Self.shop(counters: ["till-1", "till-2"])
        let first = try await daemons[0].connect()
        _ = try await first.call("cards.link", ["uid": .string(Self.uid), "walletAddress": "rAda"])
        let second = try await daemons[1].connect()
        _ = try await waitFor("the card to reach the second counter") {
            try await second.inject(device: "mock:door", uid: Self.uid).resolution.status == "identified" ? () : nil
        }
        let config = ["--config", daemons[1].directory.appendingPathComponent("scanbridge.yaml").path]
        let shared = ["--drivers", "mock", "--mock", "nfc:door", "--store", server.url(database: database)] + config
        _ = try await daemons[1].stop()

        // Run alone for a while: what it then holds is its own, even if it changed nothing.
        let alone = try DaemonHarness.reusing(daemons[1], arguments: ["--drivers", "mock", "--mock", "nfc:door"] + config)
        try await alone.start()
        _ = try await alone.stop()
        let back = try DaemonHarness.reusing(daemons[1], arguments: shared)
        try await back.start()
        let client = try await back.connect()
        let own = try await waitFor("the counter to say its data is its own") {
            try await client.call("bridge.hello")["store"]?["problem"]?.stringValue
        }
        #expect(own.contains("of its own"), "\(own)")
        #expect(try await client.call("store.migrate")["cards"] == 1)
        _ = try await first.call("cards.link", ["uid": "04000000000001", "walletAddress": "rBob"])
        _ = try await waitFor("the moved counter to follow the shop") {
            try await client.inject(device: "mock:door", uid: "04000000000001").resolution.status == "identified" ? () : nil
        }
        _ = try await back.stop()

        // The shop's log rewound under the same database (a restore from a backup).
        _ = try await server.psql("DELETE FROM scanbridge_changes", database: database)
        let restored = try DaemonHarness.reusing(daemons[1], arguments: shared)
        try await restored.start()
        let again = try await restored.connect()
        let rewound = try await waitFor("the counter to notice the rewound log") {
            try await again.call("bridge.hello")["store"]?["problem"]?.stringValue
        }
        #expect(rewound.contains("restored from a backup"), "\(rewound)")
        #expect(try await again.inject(device: "mock:door", uid: Self.uid).resolution.status == "identified")
    }

    @Test func aRepairOrderSavedAtTheBenchIsFoundAtTheTillWithItsDevices() async throws {
        let (server, database, daemons) = try await Self.shop(counters: ["bench", "till-1"])
        defer { withExtendedLifetime(server) {} }
        let bench = try await daemons[0].connect()
        let till = try await daemons[1].connect()
        let stored = try await bench.call("orders.upsert", ["order": OrdersEndToEndTests.order])
        #expect(stored["orders"]?[0]?["devices"]?[0]?["orderId"] == "ord_1001")
        let found = try await waitFor("the order to be found at the till") {
            let answer = try await till.call("orders.lookup", ["code": "DEVICE:dev_55"])
            return answer["status"] == "found" ? .some(answer) : .none
        }
        #expect(found["order"]?["reference"] == "RM-1001" && found["device"]?["serial"] == "F2LXK0ABCD", "\(found)")

        // One reference per order shop-wide, ignoring case; a device moves with its order.
        let clash = await expectRPCError(RPCError.conflict) {
            _ = try await till.call(
                "orders.upsert", ["orders": [["id": "ord_3", "reference": "RM-3"], ["id": "ord_2", "reference": "rm-1001"]]])
        }
        #expect(clash?.data?["field"] == "orders[1].reference")
        _ = try await till.call(
            "orders.upsert", ["order": ["id": "ord_1001", "reference": "RM-1001", "status": "done", "devices": []]])
        _ = try await till.call(
            "orders.upsert",
            ["order": ["id": "ord_2", "reference": "RM-1002", "devices": [["id": "dev_55", "status": "received"]]]])
        let moved = try await waitFor("the moved device to reach the bench") {
            let answer = try await bench.call("orders.lookup", ["code": "DEVICE:dev_55"])
            return answer["order"]?["id"] == "ord_2" ? .some(answer) : .none
        }
        #expect(moved["device"]?["status"] == "received")
        #expect(try await bench.call("orders.lookup", ["code": "RM-1001"])["order"]?["status"] == "done")
        // An order saved without its devices keeps the shop's, whatever this counter's copy holds.
        _ = try await server.psql(
            "INSERT INTO scanbridge_order_devices (id, order_id, position, status) VALUES ('dev_77', 'ord_2', 1, 'new')",
            database: database)
        _ = try await bench.call("orders.upsert", ["order": ["id": "ord_2", "reference": "RM-1002", "status": "ready"]])
        let devices = try await server.psql(
            "SELECT string_agg(id, ',' ORDER BY position) FROM scanbridge_order_devices WHERE order_id = 'ord_2'",
            database: database)
        #expect(devices == "dev_55,dev_77")
    }
}
