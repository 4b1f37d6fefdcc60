import Foundation
import Logging
import PostgresNIO
import ScanBridgeTesting
import Testing

@testable import ScanBridgeSharedStore

/// A store operation ends by its deadline whatever it waits for, on a real PostgreSQL server.
@Suite(
    .enabled(
        if: TestEnvironment.runs(unless: TestPostgres.unavailableReason), Comment(rawValue: TestPostgres.unavailableReason ?? ""))
)
struct StoreDeadlineTests {
    @Test("a query sent on a connection that closed under it is never answered, and still ends at the deadline")
    func aQueryLostOnAClosedConnectionEndsAtTheDeadline() async throws {
        let server = try await TestPostgres()
        let location = try SharedStoreLocation(url: server.url(database: "postgres"))
        guard case .unixSocket(let path, _) = location.endpoint else {
            Issue.record("the test server is reached through its socket: \(location)")
            return
        }
        let client = PostgresClient(
            configuration: .init(unixSocketPath: path, username: server.user, password: nil, database: "postgres"))
        let running = Task { await client.run() }
        defer { running.cancel() }
        let logger = Logger(label: "test")
        await #expect(throws: StoreTimeout.self) {
            try await client.withConnection("a query on a closed connection", within: .seconds(1)) { connection in
                // The server going away between the lease and the query: the channel closes
                // and drops its handlers, and a query written after that gets no answer ever.
                try await connection.close()
                try await Task.sleep(for: .milliseconds(200))
                try await connection.query("SELECT 1", logger: logger)
            }
        }
        // The pool still serves the next operation.
        let answered = try await client.withConnection("a query", within: .seconds(30)) { connection in
            try await connection.query("SELECT 1", logger: logger).collect().count
        }
        #expect(answered == 1)
    }
}
