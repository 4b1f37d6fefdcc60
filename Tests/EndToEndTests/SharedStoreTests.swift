import Foundation
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeRPC
import ScanBridgeTesting
import Testing

/// Counters of one shop on a real PostgreSQL server: their events reach `scan_events`
/// exactly once per `(counter_id, seq)`, through outages.
/// The suite shares one cluster, a database per test; the tests that stop or freeze the
/// server have one of their own. The counters retry the store within half a second, so a
/// test waits for the store's return, not for a shop's back-off.
@Suite(
    .heavy, .postgresCluster,
    .enabled(
        if: TestEnvironment.runs(unless: TestPostgres.unavailableReason), Comment(rawValue: TestPostgres.unavailableReason ?? ""))
)
struct SharedStoreTests {
    /// An empty database of the test's own: on the suite's cluster, or on a cluster of its
    /// own for a test that stops or freezes the server.
    private func shop(ownServer: Bool = false) async throws -> (server: TestPostgres, database: String) {
        try await ownServer ? TestPostgres.privateDatabase() : TestPostgres.suiteDatabase()
    }

    /// A counter's config: it tries the store again within half a second, and takes a server
    /// silent for `answerLimitMs` (the default: ten seconds) for gone.
    static func config(_ name: String, answerLimitMs: Int? = nil) -> String {
        "counter_id: \(name)\nstore:\n  retry_max_ms: 500\n" + (answerLimitMs.map { "  answer_limit_ms: \($0)\n" } ?? "")
    }

    private func counter(
        _ name: String, at server: TestPostgres, _ database: String, url: String? = nil, answerLimitMs: Int? = nil
    ) async throws -> DaemonHarness {
        try await startDaemon(
            [
                "--drivers", "mock", "--mock", "barcode:till", "--mock", "nfc:door", "--store",
                url ?? server.url(database: database),
            ],
            config: Self.config(name, answerLimitMs: answerLimitMs))
    }

    @Test func eventsReachTheShopsTableWithTheirColumns() async throws {
        let (server, database) = try await shop()
        let daemon = try await counter("till-1", at: server, database)
        let client = try await daemon.connect()
        for text in ["4006381333931", "ORDER:R-1", "hello"] { _ = try await client.inject(device: "mock:till", text: text) }
        try await server.waitForCopies(3, of: "till-1", database)
        let rows = try await server.psql(
            "SELECT seq, kind, device, text, status, event->>'seq', time = (event->>'time')::timestamptz "
                + "FROM scan_events ORDER BY seq",
            database: database)
        #expect(
            rows.split(separator: "\n") == [
                "1|barcode|mock:till|4006381333931|not_found|1|t", "2|barcode|mock:till|ORDER:R-1|not_found|2|t",
                "3|barcode|mock:till|hello|not_found|3|t",
            ])
        let hello = try await client.call("bridge.hello")
        #expect(hello["counter"] == "till-1")
        #expect(hello["store"]?["kind"] == "postgresql")
        #expect(hello["store"]?["state"] == "ok")
        #expect(hello["store"]?["copyLag"] == 0)
    }

    @Test func scansGoOnWhileTheStoreIsDownAndAreCopiedOnceWhenItReturns() async throws {
        let (server, database) = try await shop(ownServer: true)
        let daemon = try await counter("till-1", at: server, database)
        let client = try await daemon.connect()
        for index in 0..<5 { _ = try await client.inject(device: "mock:till", text: "before-\(index)") }
        try await server.waitForCopies(5, of: "till-1", database)

        try await server.stop()
        for index in 0..<20 { _ = try await client.inject(device: "mock:till", text: "during-\(index)") }
        // JSONValue takes nil as JSON's null: say `none`, so that the wait goes on.
        let offline = try await waitFor("bridge.hello to say the store is offline") {
            let hello = try await client.call("bridge.hello")
            return hello["store"]?["state"] == "offline" ? hello : JSONValue?.none
        }
        #expect(offline["store"]?["copyLag"]?.intValue ?? 0 >= 1, "\(offline)")
        let doctor = try await run("scanbridge", ["doctor", "--socket", daemon.socketPath])
        #expect(doctor.status == 1, "\(doctor.out)\(doctor.err)")
        #expect(doctor.out.contains("store    the shop's PostgreSQL store, offline; counter till-1;"), "\(doctor.out)")
        #expect(doctor.out.contains("- the shop's PostgreSQL store is offline: scans go on"), "\(doctor.out)")

        try await server.start()
        try await server.waitForCopies(25, of: "till-1", database)
        try await server.expectTheJournal(of: client, database, counter: "till-1")
        _ = try await waitFor("bridge.hello to say the store is ok with nothing left to copy") {
            let hello = try await client.call("bridge.hello")
            return hello["store"]?["state"] == "ok" && hello["store"]?["copyLag"] == 0 ? hello : JSONValue?.none
        }
    }

    /// A server that stops closes every connection: the change feed sees it go, so the
    /// counter says offline with no scan to find out, its scans' resolutions say so, and it
    /// is back as soon as the server answers, however long it was away (a fresh pool tries
    /// each second). On the defaults.
    @Test func aStoppedServerIsSeenOfflineAtOnceAndOnlineAgainWhenItAnswers() async throws {
        let (server, database) = try await shop(ownServer: true)
        let daemon = try await startDaemon(
            ["--drivers", "mock", "--mock", "barcode:till", "--store", server.url(database: database)],
            config: "counter_id: till-1\n")
        let client = try await daemon.connect()
        _ = try await waitFor("the store to be ok") {
            try await client.call("bridge.hello")["store"]?["state"] == "ok" ? () : nil
        }
        try await server.stop()
        let stopped = ContinuousClock.now
        _ = try await waitFor("bridge.hello to say the store is offline") {
            try await client.call("bridge.hello")["store"]?["state"] == "offline" ? () : nil
        }
        let seenOffline = ContinuousClock.now - stopped
        let event = try await client.inject(device: "mock:till", text: "4006381333931")
        #expect(event.resolution.details["offline"] == .bool(true), "\(event.resolution)")
        // Long enough for postgres-nio's own pool to wait seconds between its attempts.
        try await Task.sleep(for: .seconds(15))
        try await server.start()
        let started = ContinuousClock.now
        _ = try await waitFor("bridge.hello to say the store is ok again") {
            try await client.call("bridge.hello")["store"]?["state"] == "ok" ? () : nil
        }
        // Reported, not asserted: the time a POS is told, as the shop's docs promise.
        print("shop store: offline seen \(seenOffline) after the stop, online \(ContinuousClock.now - started) after the start")
        try await server.waitForCopies(1, of: "till-1", database)
    }

    @Test func aServerGoneSilentIsSeenOfflineAndTheCopyGoesOnWhenItAnswersAgain() async throws {
        let (server, database) = try await shop(ownServer: true)
        let daemon = try await counter("till-1", at: server, database)
        let client = try await daemon.connect()
        _ = try await client.inject(device: "mock:till", text: "before")
        try await server.waitForCopies(1, of: "till-1", database)

        // Connections stay open, and nothing answers: only a question's deadline can tell.
        try server.freeze()
        do {
            let frozen = ContinuousClock.now
            for index in 0..<3 { _ = try await client.inject(device: "mock:till", text: "silent-\(index)") }
            _ = try await waitFor("bridge.hello to say the store is offline", timeout: .seconds(60)) {
                try await client.call("bridge.hello")["store"]?["state"] == "offline" ? () : nil
            }
            // Reported, not asserted.
            print("shop store: a silent server seen offline \(ContinuousClock.now - frozen) after it froze")
        } catch {
            try server.thaw()
            throw error
        }
        try server.thaw()
        try await server.waitForCopies(4, of: "till-1", database)
        try await server.expectTheJournal(of: client, database, counter: "till-1")
    }

    /// A shop's database in a Turkish locale folds 'I' to 'ı': its references must still
    /// ignore case as a counter does (SQLite's NOCASE, ASCII only), or it would hold two
    /// orders a counter takes for one.
    @Test func orderReferencesIgnoreCaseAsACounterDoesWhateverTheShopsLocale() async throws {
        let (server, _) = try await shop()
        let database = "shop_tr_\(UUID().uuidString.prefix(8).lowercased())"
        _ = try await server.psql(
            "CREATE DATABASE \(database) TEMPLATE template0 LOCALE 'C' LOCALE_PROVIDER icu ICU_LOCALE 'tr-TR'",
            database: "postgres")
        #expect(try await server.psql("SELECT lower('I') = 'ı'", database: database) == "t", "a Turkish locale")
        let daemon = try await counter("till-1", at: server, database)
        let client = try await daemon.connect()
        _ = try await client.inject(device: "mock:till", text: "migrated")
        try await server.waitForCopies(1, of: "till-1", database)
        let insert = { (id: String, reference: String) in
            "INSERT INTO scanbridge_orders (id, reference, status, created_at) VALUES ('\(id)', '\(reference)', 'open', now())"
        }
        _ = try await server.psql(insert("o1", "ORDER-I"), database: database)
        await #expect(throws: (any Error).self, "ORDER-I and order-i are one reference at a counter") {
            _ = try await server.psql(insert("o2", "order-i"), database: database)
        }
        _ = try await server.psql(insert("o3", "ORDER-İ"), database: database)
    }

    @Test func aCounterStartsWithTheStoreDownAndCatchesUpLater() async throws {
        let (server, database) = try await shop(ownServer: true)
        try await server.stop()
        let daemon = try await counter("till-1", at: server, database)
        let client = try await daemon.connect()
        for index in 0..<3 { _ = try await client.inject(device: "mock:till", text: "offline-\(index)") }
        let hello = try await client.call("bridge.hello")
        #expect(hello["store"]?["state"] == "offline")
        #expect(hello["store"]?["copyLag"] == 3)
        try await server.start()
        try await server.waitForCopies(3, of: "till-1", database)
    }

    @Test func threeCountersShareOneTableEachInItsOwnOrder() async throws {
        let (server, database) = try await shop()
        var daemons: [DaemonHarness] = []
        for name in ["till-1", "till-2", "bench"] {
            // One of them over TCP, as a counter on another box reaches the shop's server.
            let url = name == "bench" ? server.tcpURL(database: database) : nil
            daemons.append(try await counter(name, at: server, database, url: url))
        }
        for (index, daemon) in daemons.enumerated() {
            let client = try await daemon.connect()
            for scan in 0..<(10 * (index + 1)) { _ = try await client.inject(device: "mock:till", text: "c\(index)-\(scan)") }
        }
        for (index, name) in ["till-1", "till-2", "bench"].enumerated() {
            try await server.waitForCopies(10 * (index + 1), of: name, database)
        }
        let perCounter = try await server.psql(
            "SELECT counter_id, count(*), max(seq), bool_and(text LIKE 'c' || "
                + "CASE counter_id WHEN 'till-1' THEN '0' WHEN 'till-2' THEN '1' ELSE '2' END || '-%') "
                + "FROM scan_events GROUP BY counter_id ORDER BY counter_id",
            database: database)
        #expect(perCounter.split(separator: "\n") == ["bench|30|30|t", "till-1|10|10|t", "till-2|20|20|t"])
    }

    @Test func aCharacterPostgreSQLCannotHoldDoesNotStopTheCopy() async throws {
        let (server, database) = try await shop()
        let daemon = try await counter("till-1", at: server, database)
        let client = try await daemon.connect()
        _ = try await client.inject(device: "mock:till", text: "A\u{0}B")
        _ = try await client.inject(device: "mock:till", text: "after")
        try await server.waitForCopies(2, of: "till-1", database)
        let texts = try await server.psql("SELECT text FROM scan_events ORDER BY seq", database: database)
        #expect(texts.split(separator: "\n") == ["A\u{FFFD}B", "after"])
    }

    @Test func twoDaemonsGivenOneCounterNameAreNotMixedUp() async throws {
        let (server, database) = try await shop()
        let first = try await counter("till-1", at: server, database)
        let firstClient = try await first.connect()
        for index in 0..<5 { _ = try await firstClient.inject(device: "mock:till", text: "first-\(index)") }
        try await server.waitForCopies(5, of: "till-1", database)
        // A second box set up with the same name: its seq 1 is not the first box's seq 1.
        let second = try await counter("till-1", at: server, database)
        let secondClient = try await second.connect()
        _ = try await secondClient.inject(device: "mock:till", text: "second-0")
        try await waitFor("the second daemon to say whose name it uses") {
            second.log.contains("another daemon uses counter_id 'till-1'") ? () : nil
        }
        let texts = try await server.psql("SELECT count(*) FROM scan_events WHERE text LIKE 'second%'", database: database)
        #expect(texts == "0")
        #expect(try await secondClient.call("bridge.hello")["store"]?["state"] == "offline")
    }

    @Test func erasingACustomerErasesThemFromTheCopiesToo() async throws {
        let (server, database) = try await shop(ownServer: true)
        let daemon = try await counter("till-1", at: server, database)
        let client = try await daemon.connect()
        let uid = "04A1B2C3D4E5F6"
        _ = try await client.call(
            "customers.upsert", ["customer": ["walletAddress": "rAda", "name": "Ada Lovelace", "email": "ada@example.com"]])
        _ = try await client.call("cards.link", ["uid": .string(uid), "walletAddress": "rAda", "cardName": "Ada's blue card"])
        #expect(try await client.inject(device: "mock:door", uid: uid).resolution.status == "identified")
        _ = try await client.inject(device: "mock:till", text: "after")
        try await server.waitForCopies(2, of: "till-1", database)
        let personal = "SELECT count(*) FROM scan_events WHERE event::text ~ '(Ada Lovelace|ada@example.com|blue card)'"
        #expect(try await server.psql(personal, database: database) == "1")

        // With the store away, nothing is erased: not here, and not there.
        try await server.stop()
        _ = try await waitFor("bridge.hello to say the store is offline", timeout: .seconds(60)) {
            try await client.call("bridge.hello")["store"]?["state"] == "offline" ? () : nil
        }
        await expectRPCError(RPCError.unavailable) { _ = try await client.call("customers.erase", ["walletAddress": "rAda"]) }
        #expect(try await client.call("customers.get", ["walletAddress": "rAda"])["customer"]?["name"] == "Ada Lovelace")

        try await server.start()
        _ = try await waitFor("bridge.hello to say the store is ok") {
            try await client.call("bridge.hello")["store"]?["state"] == "ok" ? () : nil
        }
        let erased = try await client.call("customers.erase", ["walletAddress": "rAda"])
        #expect(erased == ["erased": true, "cardsUnlinked": 1, "eventsRewritten": 1])
        #expect(try await server.psql(personal, database: database) == "0")
        let tap = try await server.psql(
            "SELECT event->>'uid', event->'resolution'->'customer'->>'walletAddress' FROM scan_events WHERE kind = 'nfc'",
            database: database)
        #expect(tap == "\(uid)|rAda", "the scan itself stays")
    }

    @Test func aRowNoJournalGivesStopsTheCopyButNotTheDaemon() async throws {
        let (server, database) = try await shop()
        let daemon = try await counter("till-1", at: server, database)
        let client = try await daemon.connect()
        _ = try await client.inject(device: "mock:till", text: "first")
        try await server.waitForCopies(1, of: "till-1", database)
        _ = try await server.psql(
            "DELETE FROM scan_events; INSERT INTO scan_events VALUES ('till-1', -5, now(), 'barcode', 'x', 'x', 'x', '{}')",
            database: database)
        // The copy must read where it stands again: a restart makes it.
        _ = try await daemon.stop()
        try await daemon.start()
        try await waitFor("the daemon to refuse the row") {
            daemon.log.contains("another daemon uses counter_id 'till-1'") ? () : nil
        }
        let again = try await daemon.connect()
        _ = try await again.inject(device: "mock:till", text: "second")
        #expect(try await again.call("bridge.hello")["store"]?["state"] == "offline")
    }

    @Test func eventsACounterCopiesAfterAnErasureComeInErased() async throws {
        let (server, database) = try await shop()
        let uid = "04A1B2C3D4E5F6"
        let arguments = { (url: String) in
            ["--drivers", "mock", "--mock", "barcode:till", "--mock", "nfc:door", "--store", url]
        }
        // Ada's card, linked at the shop while counter B could reach it.
        let late = try await counter("till-2", at: server, database)
        let lateClient = try await late.connect()
        _ = try await lateClient.call("customers.upsert", ["customer": ["walletAddress": "rAda", "name": "Ada Lovelace"]])
        _ = try await lateClient.call("cards.link", ["uid": .string(uid), "walletAddress": "rAda"])
        _ = try await late.stop()

        // B taps it while it cannot reach the store (a port nothing listens on): from its copy.
        let config = ["--config", late.directory.appendingPathComponent("scanbridge.yaml").path]
        let away = try DaemonHarness.reusing(
            late, arguments: arguments("postgresql://scanbridge@127.0.0.1:1/\(database)") + config)
        try await away.start()
        let awayClient = try await away.connect()
        #expect(try await awayClient.inject(device: "mock:door", uid: uid).resolution.status == "identified")
        _ = try await away.stop()

        // Counter A erases Ada, shop-wide.
        let first = try await counter("till-1", at: server, database)
        let firstClient = try await first.connect()
        _ = try await waitFor("till-1 to reach the store") {
            try await firstClient.call("bridge.hello")["store"]?["state"] == "ok" ? () : nil
        }
        _ = try await firstClient.call("customers.erase", ["walletAddress": "rAda"])

        // B comes back: its tap is copied, without Ada's name.
        let back = try DaemonHarness.reusing(late, arguments: arguments(server.url(database: database)) + config)
        try await back.start()
        try await server.waitForCopies(1, of: "till-2", database)
        let copy = try await server.psql(
            "SELECT event->>'uid', event->'resolution'->'customer'->>'name' IS NULL FROM scan_events", database: database)
        #expect(copy == "\(uid)|t")
    }
}
