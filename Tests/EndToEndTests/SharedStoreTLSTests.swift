import Foundation
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeTesting
import Testing

/// The connection to the shop's store cannot be downgraded: TLS as `sslmode` asks, against a
/// real PostgreSQL server with a certificate the test makes (docs/shop-store.md, TLS).
@Suite(
    .heavy, .postgresCluster,
    .enabled(
        if: TestEnvironment.runs(unless: TestPostgres.unavailableReason), Comment(rawValue: TestPostgres.unavailableReason ?? ""))
)
struct SharedStoreTLSTests {
    /// A counter of its own name on `url`; its `bridge.hello` says whether it reached the store.
    private func counter(_ url: String, config: String = "") async throws -> DaemonHarness {
        try await startDaemon(
            ["--drivers", "mock", "--mock", "barcode:till", "--store", url],
            config: "counter_id: till-\(UUID().uuidString.prefix(8))\nstore:\n  retry_max_ms: 500\n  answer_limit_ms: 3000\n"
                + config)
    }

    private func state(of daemon: DaemonHarness, becomes wanted: String) async throws {
        let client = try await daemon.connect()
        defer { Task { await client.close() } }
        do {
            try await waitFor("the store's state to be \(wanted)", timeout: .seconds(60)) {
                try await client.call("bridge.hello")["store"]?["state"]?.stringValue == wanted ? () : nil
            }
        } catch {
            Issue.record("the daemon's log: \(daemon.log.suffix(2000))")
            throw error
        }
    }

    /// The copy failed to reach the store, and postgres-nio's log says why.
    private func refused(_ daemon: DaemonHarness, because cause: String) async throws {
        try await waitFor("the copy to give up on the store") { daemon.log.contains("cannot be reached") ? () : nil }
        let said = daemon.log.split(separator: "\n").filter { $0.contains("psql_error") }
        #expect(said.contains { $0.contains(cause) }, "\(said.prefix(2))")
    }

    /// The server's certificate names `localhost` only, and is signed by the test's authority.
    @Test func theServersCertificateIsVerifiedAsSslmodeAsks() async throws {
        let (server, database) = try await TestPostgres.privateDatabase()
        let ours = try await TestCertificates.make(in: server.directory, label: "shop", names: ["DNS:localhost"])
        let stranger = try await TestCertificates.make(in: server.directory, label: "stranger", names: ["DNS:localhost"])
        try await server.useTLS(ours)
        let base = "postgresql://\(server.user)@localhost:\(server.port)/\(database)"

        // Verified, by the root the URL names or the config's.
        let verified = try await counter("\(base)?sslmode=verify-full&sslrootcert=\(ours.authority)")
        try await state(of: verified, becomes: "ok")
        let client = try await verified.connect()
        _ = try await client.inject(device: "mock:till", text: "4006381333931")
        let counterName = try #require(try await client.call("bridge.hello")["counter"]?.stringValue)
        await client.close()
        try await server.waitForCopies(1, of: counterName, database)
        let encrypted = try await server.psql(
            "SELECT bool_and(s.ssl) FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) WHERE a.datname = '\(database)'",
            database: "postgres")
        #expect(encrypted == "t", "every connection of the counter is TLS")
        _ = try await verified.stop()
        let configured = try await counter(base, config: "  root_certificate: \(ours.authority)\n")
        try await state(of: configured, becomes: "ok")
        _ = try await configured.stop()

        // A certificate another authority signed, or one that names another host, is refused.
        let strange = try await counter("\(base)?sslmode=verify-full&sslrootcert=\(stranger.authority)")
        try await refused(strange, because: "CERTIFICATE_VERIFY_FAILED")
        _ = try await strange.stop()
        let byAddress = "postgresql://\(server.user)@127.0.0.1:\(server.port)/\(database)?sslrootcert=\(ours.authority)"
        let misnamed = try await counter("\(byAddress)&sslmode=verify-full")
        try await refused(misnamed, because: "failedToValidateHostname")
        _ = try await misnamed.stop()
        // verify-ca checks the signature, not the name.
        let signed = try await counter("\(byAddress)&sslmode=verify-ca")
        try await state(of: signed, becomes: "ok")
        _ = try await signed.stop()

        // A shop's server named by its address: the certificate names the address.
        let addressed = try await TestCertificates.make(
            in: server.directory, label: "addressed", names: ["DNS:localhost", "IP:127.0.0.1"])
        try await server.useTLS(addressed)
        let byIP = try await counter(
            "postgresql://\(server.user)@127.0.0.1:\(server.port)/\(database)?sslmode=verify-full&sslrootcert=\(addressed.authority)"
        )
        try await state(of: byIP, becomes: "ok")
        _ = try await byIP.stop()
    }

    /// A server that offers no TLS is not spoken to once `sslmode` asks for it: a machine in
    /// the middle answering for the server cannot turn it off.
    @Test func aServerWithoutTLSIsRefusedWhenSslmodeAsksForIt() async throws {
        let (server, database) = try await TestPostgres.suiteDatabase()
        let base = "postgresql://\(server.user)@127.0.0.1:\(server.port)/\(database)"
        let required = try await counter("\(base)?sslmode=require")
        try await refused(required, because: "sslUnsupported")
        #expect(try await server.psql("SELECT to_regclass('scan_events') IS NULL", database: database) == "t")
        _ = try await required.stop()
        let plain = try await counter("\(base)?sslmode=disable")
        try await state(of: plain, becomes: "ok")
        _ = try await plain.stop()
    }
}
