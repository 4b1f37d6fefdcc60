import Foundation
import ScanBridgeTesting

/// The `shop` scenario's PostgreSQL server: the test kit's (`TestPostgres`: Debian's binaries,
/// initdb in a temporary folder, its own socket and port, `fsync=off`), with one database,
/// `shop`, and commit timestamps on, so that the time a copied event became visible in
/// `scan_events` is the server's own record of its transaction's commit
/// (`pg_xact_commit_timestamp(xmin)`), not a poll's.
final class ShopServer: Sendable {
    let postgres: TestPostgres
    let database = "shop"

    private init(postgres: TestPostgres) {
        self.postgres = postgres
    }

    static func start() async throws -> ShopServer {
        let postgres = try await TestPostgres()
        ShopCleanup.track(postgres)
        // A setting read only when the server starts.
        _ = try await postgres.psql("ALTER SYSTEM SET track_commit_timestamp = on", database: "postgres")
        try await postgres.stop()
        try await postgres.start()
        try await postgres.createDatabase("shop")
        return ShopServer(postgres: postgres)
    }

    /// The daemons' `--store`: the server's Unix socket, as a till with the shop's server on
    /// the same box reaches it.
    var url: String { postgres.url(database: database) }

    /// Runs SQL in the shop's database with psql: its output, unaligned, `|` between columns.
    @discardableResult
    func sql(_ statement: String) async throws -> String {
        try await postgres.psql(statement, database: database)
    }

    /// The postmaster's pid, from its pid file.
    var postmaster: pid_t? {
        let path = postgres.directory.appendingPathComponent("data/postmaster.pid").path
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").first.flatMap { pid_t($0) }
    }

    /// CPU seconds of the server: the postmaster, its running backends and workers, and those
    /// that have exited.
    var cpuSeconds: Double {
        postmaster.flatMap { ProcessStat.cpuSecondsWithChildren(of: $0) } ?? 0
    }

    /// Stops the server at once and removes its folder.
    func close() async {
        try? await postgres.stop()
        try? FileManager.default.removeItem(at: postgres.directory)
    }
}
