import Foundation
import ScanBridgeTesting
import Testing

/// One PostgreSQL cluster for a whole suite (`@Suite(.postgresCluster)`), started by the first
/// test that asks for it and stopped when the suite ends; each test takes a database of its
/// own on it (`TestPostgres.suiteDatabase()`), so the tests can run at once and an initdb is
/// paid once. A test that stops or freezes the server makes a private cluster instead.
struct SuitePostgresTrait: SuiteTrait, TestScoping {
    /// Once around the suite, not once per test.
    var isRecursive: Bool { false }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let slot = ClusterSlot()
        defer { slot.release() }
        try await ClusterSlot.$current.withValue(slot) { try await function() }
    }
}

extension Trait where Self == SuitePostgresTrait {
    static var postgresCluster: Self { SuitePostgresTrait() }
}

/// The running suite's cluster: started once, on first use; a failed start is remembered, so
/// the suite's other tests fail with the same reason at once.
final class ClusterSlot: Sendable {
    @TaskLocal static var current: ClusterSlot?

    struct Missing: Error, CustomStringConvertible {
        var description: String { "suiteDatabase() is for tests in a suite with the .postgresCluster trait" }
    }

    private let start = Shared<Task<TestPostgres, any Error>?>(nil)

    func server() async throws -> TestPostgres {
        let start = self.start.withLock { start in
            let task = start ?? Task { try await TestPostgres() }
            start = task
            return task
        }
        return try await start.value
    }

    /// Lets the cluster go: its server stops when the last test holding it lets it go too.
    func release() { start.withLock { $0 = nil } }
}

extension TestPostgres {
    /// A new, empty database on the running suite's cluster (`.postgresCluster`).
    static func suiteDatabase() async throws -> (server: TestPostgres, database: String) {
        guard let slot = ClusterSlot.current else {
            throw ClusterSlot.Missing()
        }
        let server = try await slot.server()
        let database = "shop_\(UUID().uuidString.prefix(8).lowercased())"
        try await server.createDatabase(database)
        return (server, database)
    }

    /// A cluster of the test's own with an empty database: for a test that stops or freezes
    /// the server, which would take the suite's other tests' databases with it.
    static func privateDatabase() async throws -> (server: TestPostgres, database: String) {
        let server = try await TestPostgres()
        try await server.createDatabase("shop")
        return (server, "shop")
    }
}
