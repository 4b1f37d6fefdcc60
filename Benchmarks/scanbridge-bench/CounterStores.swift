import Foundation
import GRDB
import ScanBridgeTesting

/// The stores the scenarios start their daemons on, each made once a run and copied for every
/// daemon: the shop's (the benchmark's catalog of a million products, imported through the
/// CLI, its customers, cards, repair orders and priced items (`CounterPeople`), plus the
/// demo's catalog, customer, cards and repair orders) and the demo's alone.
actor CounterStores {
    enum Catalog: Equatable, Sendable {
        case shop(size: Int)
        case demo
        case none
    }

    private let directory: URL
    let shopSize: Int
    private var made: [String: String] = [:]

    init(directory: URL, shopSize: Int) {
        self.directory = directory
        self.shopSize = shopSize
    }

    nonisolated var shop: Catalog { .shop(size: shopSize) }

    /// A release daemon with the counter's mock devices on a copy of `catalog`'s store, ready,
    /// its catalog's keys loaded. `durability` sets `journal.durability` (the default, `full`,
    /// when nil); `config` is more of the configuration file; `folderMode`, the permissions of
    /// the daemon's folder (where its socket is) when others than its user must reach it.
    func daemon(
        _ catalog: Catalog, executable: URL? = nil, durability: ScanBridgeBench.Durability? = nil,
        arguments more: [String] = [], config: String = "", folderMode: Int? = nil
    ) async throws -> DaemonHarness {
        let arguments = CounterWorkload.mockDevices + ["--log-level", "warning"] + more
        var daemon = try DaemonHarness(arguments: arguments, executable: executable)
        let settings = (durability.map { "journal:\n  durability: \($0)\n" } ?? "") + config
        if !settings.isEmpty {
            let file = try daemon.write("scanbridge.yaml", settings)
            daemon = try DaemonHarness.reusing(daemon, arguments: arguments + ["--config", file])
        }
        try await copy(catalog, to: daemon)
        if let folderMode {
            try FileManager.default.setAttributes([.posixPermissions: folderMode], ofItemAtPath: daemon.directory.path)
        }
        try await daemon.start()
        if catalog != .none { try await CatalogScenarios.settle(daemon: daemon) }
        return daemon
    }

    /// Gives a daemon not started yet a copy of `catalog`'s store.
    func copy(_ catalog: Catalog, to daemon: DaemonHarness) async throws {
        guard let store = try await store(catalog) else { return }
        try FileManager.default.copyItem(atPath: store, toPath: daemon.databasePath)
        // On disk before the daemon starts: otherwise the kernel writes the copy back while the
        // scenario runs, and the daemon's commits wait behind it.
        let copy = open(daemon.databasePath, O_RDONLY)
        defer { close(copy) }
        guard copy >= 0, fsync(copy) == 0 else {
            throw BenchmarkFailure(description: "fsync \(daemon.databasePath): \(String(cString: strerror(errno)))")
        }
    }

    /// Writes a copy of `catalog`'s store to `path`.
    func write(_ catalog: Catalog, to path: String) async throws {
        guard let store = try await store(catalog) else { return }
        try FileManager.default.copyItem(atPath: store, toPath: path)
    }

    /// The database file of `catalog`, made on first use.
    private func store(_ catalog: Catalog) async throws -> String? {
        let name: String
        switch catalog {
        case .none: return nil
        case .demo: name = "demo"
        case .shop(let size): name = "shop-\(size)"
        }
        if let path = made[name] { return path }
        let daemon = try DaemonHarness(arguments: ["--log-level", "warning"])
        try await daemon.start()
        if case .shop(let size) = catalog {
            let csv = directory.appendingPathComponent("shop-catalog.csv")
            try CatalogScenarios.writeCatalog(to: csv, count: size)
            _ = try await CatalogScenarios.importCatalog(csv, daemon: daemon)
            try? FileManager.default.removeItem(at: csv)
            try await CounterPeople.add(to: daemon, directory: directory)
        }
        try await Self.importDemo(into: daemon)
        try await daemon.stop()
        try await Self.foldWriteAheadLog(of: daemon.databasePath)
        let path = directory.appendingPathComponent("\(name).sqlite").path
        try FileManager.default.copyItem(atPath: daemon.databasePath, toPath: path)
        made[name] = path
        return path
    }

    /// Moves what the stopped daemon left in the store's write-ahead log into its main file,
    /// which is all a copy takes: the demo's data, written last, may still be in the log.
    static func foldWriteAheadLog(of path: String) async throws {
        try await onAThread("checkpoint") {
            let store = try DatabaseQueue(path: path)
            _ = try store.writeWithoutTransaction { try $0.checkpoint(.truncate) }
            try store.close()
        }
    }

    /// The demo's data, as `make demo` imports it.
    static func importDemo(into daemon: DaemonHarness) async throws {
        let demo = repository.appendingPathComponent("demo")
        for arguments in [
            ["products", "import", demo.appendingPathComponent("catalog.csv").path],
            ["orders", "import", demo.appendingPathComponent("orders.json").path],
            ["customers", "set", "rN7nDemoWalletAda", "--name", "Ada Lovelace", "--email", "ada@example.com"],
            ["cards", "link", CounterWorkload.linkedCard, "rN7nDemoWalletAda", "--name", "Ada's card"],
        ] {
            try await runCLI(arguments, socketPath: daemon.socketPath)
        }
    }

    /// Runs the release `scanbridge` on the daemon's socket; fails unless it succeeds.
    static func runCLI(_ arguments: [String], socketPath: String) async throws {
        let process = Process()
        process.executableURL = DaemonHarness.productsDirectory.appendingPathComponent("scanbridge")
        process.arguments = arguments + ["--socket", socketPath]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        try await onAThread("scanbridge") { process.waitUntilExit() }
        guard process.terminationStatus == 0 else {
            throw BenchmarkFailure(
                description: "scanbridge \(arguments.joined(separator: " ")) exited with \(process.terminationStatus)")
        }
    }

    /// The repository's folder, where the demo's files are.
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
}
