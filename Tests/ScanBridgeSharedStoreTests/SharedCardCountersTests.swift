import Foundation
import Logging
import PostgresNIO
import ScanBridgeCodes
import ScanBridgeTesting
import Testing

@testable import ScanBridgeSharedStore

/// The shop-wide read counters of secure cards on a real PostgreSQL server: a message is
/// accepted once, whichever counters show it at once, and only a higher counter after it.
@Suite(
    .enabled(
        if: TestEnvironment.runs(unless: TestPostgres.unavailableReason), Comment(rawValue: TestPostgres.unavailableReason ?? ""))
)
struct SharedCardCountersTests {
    let logger = Logger(label: "test")

    @Test func aCounterIsAcceptedOnceShopWideAndOnlyAHigherOneAfterIt() async throws {
        let server = try await TestPostgres()
        let database = "shop_\(UUID().uuidString.prefix(8).lowercased())"
        try await server.createDatabase(database)
        let location = try SharedStoreLocation(url: server.url(database: database))
        guard case .unixSocket(let path, _) = location.endpoint else {
            Issue.record("the test server is reached through its socket, not \(location)")
            return
        }
        let client = PostgresClient(
            configuration: .init(unixSocketPath: path, username: server.user, password: nil, database: database))
        let running = Task { await client.run() }
        defer { running.cancel() }
        let logger = self.logger
        let applied = try await client.withConnection { connection in
            try await SharedSchema.migrate(connection, logger: logger)
        }
        #expect(applied.last == 9)
        let uid = try NFCUID(parsing: "04DE5F1EACC040")
        func accept(_ counter: Int, at till: String) async throws -> Bool {
            try await client.withConnection { connection in
                try await SharedCards.acceptReadCounter(
                    uid: uid, counter: counter, counterID: till, on: connection, logger: logger)
            }
        }
        // Eight counters shown the same message at once: one accepts it.
        let accepted = try await withThrowingTaskGroup(of: Bool.self) { group in
            for till in 0..<8 { group.addTask { try await accept(5, at: "till-\(till)") } }
            return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(accepted == 1)
        #expect(try await accept(5, at: "till-9") == false, "the same counter again")
        #expect(try await accept(4, at: "till-9") == false, "an older one")
        #expect(try await accept(6, at: "till-9"))
        #expect(try await accept(1, at: "till-1") == false)
    }
}
