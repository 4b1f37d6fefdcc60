import Foundation
import GRDB
import ScanBridgeTesting
import Synchronization

/// The `shop` scenario's counters: release daemons with the counter's mock devices, each with
/// a `counter_id` of its own, on the shop's store or on their own database alone. Every one
/// started is tracked (`ShopCleanup`) and stopped by `stopAll()`.
final class ShopCounters: Sendable {
    private let started = SharedList<DaemonHarness>()

    /// A counter named `name`, not started: on the shop's store at `store`, or alone (nil),
    /// on a copy of the database file `database` when given, else on an empty one.
    func make(_ name: String, store: String?, database: String? = nil) throws -> DaemonHarness {
        let arguments =
            CounterWorkload.mockDevices + ["--log-level", "warning"] + (store.map { ["--store", $0] } ?? [])
        let first = try DaemonHarness(arguments: arguments)
        let config = try first.write("scanbridge.yaml", "counter_id: \(name)\n")
        let daemon = try DaemonHarness.reusing(first, arguments: arguments + ["--config", config])
        if let database { try Self.copy(database, to: daemon.databasePath) }
        started.append(daemon)
        ShopCleanup.track(daemon)
        return daemon
    }

    /// `make`, started and settled (its catalog's keys loaded, its replica caught up: no CPU
    /// for a second).
    func start(_ name: String, store: String?, database: String? = nil) async throws -> DaemonHarness {
        let daemon = try make(name, store: store, database: database)
        try await daemon.start()
        try await CatalogScenarios.settle(daemon: daemon)
        return daemon
    }

    /// Stops every counter still running (SIGTERM, then SIGKILL) and removes its folder.
    func stopAll() async {
        for daemon in started.all {
            if daemon.pid != nil { _ = try? await daemon.stop(timeout: .seconds(10)) }
            if let pid = daemon.pid { kill(pid, SIGKILL) }
            try? FileManager.default.removeItem(at: daemon.directory)
        }
    }

    /// Copies a stopped counter's database file (its log folded in first) to `path`.
    static func snapshot(of daemon: DaemonHarness, to path: String) async throws {
        try await CounterStores.foldWriteAheadLog(of: daemon.databasePath)
        try copy(daemon.databasePath, to: path)
    }

    /// Copies a database file, on disk before any daemon starts on it: otherwise the kernel
    /// writes the copy back while the scenario measures.
    static func copy(_ source: String, to path: String) throws {
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.copyItem(atPath: source, toPath: path)
        let copy = open(path, O_RDONLY)
        defer { close(copy) }
        guard copy >= 0, fsync(copy) == 0 else {
            throw BenchmarkFailure(description: "fsync \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// What a counter's database holds of the shop, read from its file beside the running
    /// daemon: its products, and the last change of the shop's log its replica holds.
    static func replica(of daemon: DaemonHarness, counting: Bool = true) async throws -> (products: Int, lastChange: Int) {
        try await onAThread("replica") {
            var configuration = Configuration()
            configuration.readonly = true
            let database = try DatabaseQueue(path: daemon.databasePath, configuration: configuration)
            defer { try? database.close() }
            return try database.read { db in
                (
                    counting ? try Int.fetchOne(db, sql: "SELECT count(*) FROM product") ?? 0 : 0,
                    try Int.fetchOne(db, sql: "SELECT lastChange FROM shop_replica") ?? 0
                )
            }
        }
    }
}

/// A list shared between tasks.
final class SharedList<Element: Sendable>: Sendable {
    private let elements = Mutex<[Element]>([])
    func append(_ element: Element) { elements.withLock { $0.append(element) } }
    var all: [Element] { elements.withLock { $0 } }
}
