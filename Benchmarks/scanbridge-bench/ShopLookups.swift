import Foundation
import Histogram
import ScanBridgeTesting

/// `products.lookup` through the socket at a counter on the shop's store and at a counter
/// alone on a copy of the same database file (the baseline), in turns, so that both share the
/// machine's moments: codes drawn uniformly from the whole catalog (a page of it read from
/// the OS at almost every lookup); then, to tell what a lookup's tail is made of, the 10,000
/// best sellers (answered from memory once seen) and `bridge.hello` (no lookup at all: the
/// daemon's floor for a request).
enum ShopLookups {
    struct Figures {
        var onShop = Histogram<UInt64>.nanoseconds()
        var alone = Histogram<UInt64>.nanoseconds()
        var bestSellersOnShop = Histogram<UInt64>.nanoseconds()
        var bestSellersAlone = Histogram<UInt64>.nanoseconds()
        var helloOnShop = Histogram<UInt64>.nanoseconds()
        var helloAlone = Histogram<UInt64>.nanoseconds()
        /// How busy the machine was, what the two counters waited for a CPU and read from
        /// storage, over the uniform rounds.
        var machine = ""
    }

    static let bestSellers = 10_000

    static func measure(
        onShop shop: DaemonHarness, alone: DaemonHarness, server: ShopServer, catalogSize: Int, rounds: Int,
        perRound: Int
    ) async throws -> Figures {
        var figures = Figures()
        let both = [shop, alone]
        let load = MachineLoad { ScanBridgeBench.cpuSeconds(of: both) + server.cpuSeconds }
        let waited = ScanBridgeBench.waitingForCPU(of: both)
        let read = storageReadBytes(of: both)
        let started = Nanos.now()
        for _ in 0..<rounds {
            figures.onShop.add(
                try await CatalogScenarios.socketLookups(socketPath: shop.socketPath, catalogSize: catalogSize, count: perRound))
            figures.alone.add(
                try await CatalogScenarios.socketLookups(socketPath: alone.socketPath, catalogSize: catalogSize, count: perRound))
        }
        figures.machine =
            load.describe()
            + String(
                format: "; the two counters' threads waited %.2f s for a CPU in %.1f s and read %.1f MB from storage",
                ScanBridgeBench.waitingForCPU(of: both) - waited, Double(Nanos.now() - started) / 1e9,
                Double(storageReadBytes(of: both) - read) / 1e6)
        let hot = min(catalogSize, bestSellers)
        for _ in 0..<max(1, rounds / 2) {
            figures.bestSellersOnShop.add(
                try await CatalogScenarios.socketLookups(socketPath: shop.socketPath, catalogSize: hot, count: perRound))
            figures.bestSellersAlone.add(
                try await CatalogScenarios.socketLookups(socketPath: alone.socketPath, catalogSize: hot, count: perRound))
            figures.helloOnShop.add(
                try await CatalogScenarios.socketLookups(
                    socketPath: shop.socketPath, catalogSize: hot, count: perRound, hello: true))
            figures.helloAlone.add(
                try await CatalogScenarios.socketLookups(
                    socketPath: alone.socketPath, catalogSize: hot, count: perRound, hello: true))
        }
        return figures
    }

    /// The p50s, then the p99s, each the baseline's and the shop's counter's beside each other.
    static func side(by side: (Histogram<UInt64>, Histogram<UInt64>)) -> String {
        [50.0, 99.0].map { percentile in
            "p\(Int(percentile)) " + Report.format(side.0.valueAtPercentile(percentile)) + " / "
                + Report.format(side.1.valueAtPercentile(percentile))
        }.joined(separator: ", ")
    }

    /// Bytes the running daemons among `daemons` have had read from storage, not the page
    /// cache (`read_bytes` of /proc/PID/io).
    static func storageReadBytes(of daemons: [DaemonHarness]) -> Int {
        daemons.reduce(0) { total, daemon in
            let io = (try? String(contentsOfFile: "/proc/\(daemon.pid ?? 0)/io", encoding: .utf8)) ?? ""
            let line = io.split(separator: "\n").first { $0.hasPrefix("read_bytes:") }
            return total + (line.flatMap { Int($0.dropFirst("read_bytes:".count).trimmingCharacters(in: .whitespaces)) } ?? 0)
        }
    }
}
