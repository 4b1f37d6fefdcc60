import Foundation
import Histogram
import ScanBridgeTesting

extension ScanBridgeBench {
    /// The linker's order file weighed: the release daemon beside the same daemon linked in
    /// the usual order (`unordered/scanbridged`, which `make bench` builds), resident memory
    /// when ready and after the memory scenario's burst, and latency at 1,000/s, the two
    /// builds' runs interleaved so that both share the machine's state.
    static func linkOrder(stores: CounterStores, workload: CounterWorkload, scale: Int, report: inout Report) async throws {
        let unordered = DaemonHarness.productsDirectory.appendingPathComponent("unordered/scanbridged")
        guard FileManager.default.isExecutableFile(atPath: unordered.path) else {
            report.figure("link order", "skipped: no \(unordered.path) (make bench builds it)")
            return
        }
        struct Side {
            var ready: [Double] = []
            var afterBurst: [Double] = []
            var latency = Delivery()
        }
        var sides = [Side(), Side()]
        for _ in 0..<3 {
            for (index, executable) in [nil, unordered].enumerated() {
                let daemon = try await stores.daemon(workload.catalog, executable: executable)
                sides[index].ready.append(ProcessStat.megabytes("VmRSS", of: daemon.pid ?? 0))
                let memory = try await Scenarios.memoryWithStalledSubscriber(
                    daemon: daemon, events: 1_000_000 / scale, workload: workload)
                sides[index].afterBurst.append(memory.rssMB)
                try await daemon.stop()
                let fresh = try await stores.daemon(workload.catalog, executable: executable)
                sides[index].latency.add(
                    try await Scenarios.injectToScanLatency(
                        socketPath: fresh.socketPath, every: .milliseconds(1), count: 5_000 / scale, subscribers: 8,
                        workload: workload))
                try await fresh.stop()
            }
        }
        for (side, name) in zip(sides, ["ordered link", "usual link"]) {
            report.figure(
                "\(name): RSS when ready / after \(1_000_000 / scale) events (3 runs each)",
                "\(range(side.ready)) / \(range(side.afterBurst)) MB")
            report.delivery(
                "\(name): scan.inject → scan, \(workload.description), 1,000/s, 8 subscribers", side.latency)
        }
    }

    static func range(_ values: [Double]) -> String {
        String(format: "%.1f–%.1f", values.min() ?? 0, values.max() ?? 0)
    }
}
