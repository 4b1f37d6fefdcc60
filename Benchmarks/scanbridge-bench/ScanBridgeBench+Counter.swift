import Foundation
import Histogram
import ScanBridgeTesting

/// The scenarios that measure a counter's scans: the daemon on the shop's store (a million
/// products and the demo's data), the counter's mix of reads, each beside a baseline measured
/// in the same run; the cheapest path (labels no product has) as a row of its own.
extension ScanBridgeBench {
    /// 1,000 scans a second to 8 subscribers, at each durability beside `DesignModel` doing
    /// what that durability asks of a commit; then the cheapest path.
    static func latency(stores: CounterStores, directory: URL, count: Int, report: inout Report) async throws {
        let pingPong = try await Scenarios.pingPongBaseline(directory: directory, count: count)
        report.latency("baseline: bare Unix-socket ping-pong", pingPong)
        let counter = CounterWorkload(mix: .counter, catalog: stores.shop)
        for durability in Durability.allCases {
            let model = try await DesignModel.injectToScanLatency(
                directory: directory, every: .milliseconds(1), count: count, subscribers: 8,
                syncs: durability == .full)
            report.delivery(
                "baseline: the design at its leanest (DesignModel, \(durability.modelCommit)), 1,000/s, 8 subscribers",
                model)
            let latency = try await onADaemon(stores, durability: durability) { daemon in
                try await Scenarios.injectToScanLatency(
                    socketPath: daemon.socketPath, every: .milliseconds(1), count: count, subscribers: 8, workload: counter)
            }
            report.delivery(
                "scan.inject → scan, \(counter.description), 1,000/s, 8 subscribers, durability \(durability)", latency,
                target: .ratios(latency.latency, to: model.latency, p50: 2, p99: 3, of: "the model's"))
        }
        let cheapest = CounterWorkload(mix: .unknownOnly, catalog: stores.shop)
        let latency = try await onADaemon(stores) { daemon in
            try await Scenarios.injectToScanLatency(
                socketPath: daemon.socketPath, every: .milliseconds(1), count: count, subscribers: 8, workload: cheapest)
        }
        report.delivery(
            "the cheapest path: scan.inject → scan, \(cheapest.description), 1,000/s, 8 subscribers, durability full",
            latency)
    }

    /// A counter's rhythm: a scan every two seconds, the machine quiet in between (caches go
    /// cold, idle threads sleep), beside the design's leanest model at the same rhythm.
    static func sparse(stores: CounterStores, directory: URL, scans: Int, report: inout Report) async throws {
        let gap = Duration.seconds(2)
        let model = try await DesignModel.injectToScanLatency(
            directory: directory, every: gap, count: scans, subscribers: 8, syncs: true)
        report.delivery("baseline: the design at its leanest (DesignModel, each commit synced), one every 2 s", model)
        let counter = CounterWorkload(mix: .counter, catalog: stores.shop)
        let latency = try await onADaemon(stores) { daemon in
            try await Scenarios.injectToScanLatency(
                socketPath: daemon.socketPath, every: gap, count: scans, subscribers: 8, workload: counter)
        }
        report.delivery(
            "scan.inject → scan, \(counter.description), one every 2 s, 8 subscribers", latency,
            target: .ratio(50, of: latency.latency, to: model.latency, atMost: 2.5, of: "the model's"))
    }

    /// Events a second to 8 subscribers: injected in batches at each durability, and read one at
    /// a time by a mock driver playing a script at full speed (the path a device's reads take).
    static func throughput(stores: CounterStores, directory: URL, events: Int, report: inout Report) async throws {
        let echoRate = try await Scenarios.echoThroughput(directory: directory, lines: 2 * events)
        report.figure("baseline: bare Unix-socket echo", String(format: "%.0f lines/s", echoRate))
        let counter = CounterWorkload(mix: .counter, catalog: stores.shop)
        let cheapest = CounterWorkload(mix: .unknownOnly, catalog: stores.shop)
        for durability in Durability.allCases {
            // The model replays the events this daemon journaled, once the daemon is idle.
            let (figures, model) = try await onADaemon(stores, durability: durability) { daemon in
                let figures = try await Scenarios.throughput(
                    socketPath: daemon.socketPath, daemon: daemon.pid, events: events, subscribers: 8, workload: counter)
                let model = try await BatchedModel.eventsPerSecond(
                    replaying: daemon.databasePath, durability: durability.store, directory: directory)
                return (figures, model)
            }
            report.figure(
                "baseline: the batched model (the daemon's journal in process, the same events, one subscriber's "
                    + "lines), durability \(durability)", String(format: "%.0f events/s", model))
            let ratio = figures.eventsPerSecond / model
            let cpu = Target.atMost(figures.cpuPerEvent ?? .infinity, 50, "≤ 50 µs of CPU an event")
            let rate = Target.atLeast(ratio, 0.5, String(format: "≥ 0.5× the model's (%.2f×)", ratio))
            report.throughput(
                "sustained events/s to 8 subscribers, scan.inject batches of 64, durability \(durability)", figures,
                target: durability == .full ? .all(rate, cpu) : rate)
        }
        let figures = try await onADaemon(stores, durability: .full) { daemon in
            try await Scenarios.throughput(
                socketPath: daemon.socketPath, daemon: daemon.pid, events: events, subscribers: 8, workload: cheapest)
        }
        report.throughput(
            "sustained events/s to 8 subscribers, the cheapest path's batches, \(cheapest.description), durability full",
            figures)
        let driven = try await DriverThroughput.measure(stores: stores, workload: counter, events: events, subscribers: 8)
        report.throughput(
            "sustained events/s to 8 subscribers, a mock driver's reads one at a time, durability full", driven,
            target: .atLeast(driven.eventsPerSecond, 10_000, "≥ 10,000/s"))
        // Where the mix's time goes: its batches again, every read of one kind.
        for kind in CounterWorkload.Mix.kinds {
            let workload = CounterWorkload(mix: kind, catalog: stores.shop)
            let figures = try await onADaemon(stores, durability: .full) { daemon in
                try await Scenarios.throughput(
                    socketPath: daemon.socketPath, daemon: daemon.pid, events: events, subscribers: 8, workload: workload)
            }
            report.throughput(
                "sustained events/s to 8 subscribers, batches of \(workload.description), durability full", figures)
        }
    }

    /// Resident memory: the daemon ready and idle on each store (the baseline), then after a
    /// million events of the counter's mix with a subscriber that never reads.
    static func memory(stores: CounterStores, events: Int, report: inout Report) async throws {
        for (catalog, bound) in [(stores.shop, 60.0), (.demo, 40.0)] {
            let workload = CounterWorkload(mix: .counter, catalog: catalog)
            let store = catalog == .demo ? "the demo catalog" : "\(stores.shopSize) products"
            let daemon = try await stores.daemon(catalog)
            let idle = ProcessStat.megabytes("VmRSS", of: daemon.pid ?? 0)
            report.figure("baseline: RSS ready and idle, \(store)", String(format: "%.1f MB", idle))
            let memory = try await Scenarios.memoryWithStalledSubscriber(daemon: daemon, events: events, workload: workload)
            try await daemon.stop()
            report.figure(
                "RSS after \(events) events (\(workload.description)), 1 stalled subscriber",
                String(format: "%.1f MB (peak %.1f MB, heap %.1f MB)", memory.rssMB, memory.peakMB, memory.anonymousMB),
                target: .atMost(memory.rssMB, bound, "≤ \(Int(bound)) MB"))
        }
    }

    /// `body` on a daemon of the counter's on the shop's store, stopped once it returns.
    static func onADaemon<T>(
        _ stores: CounterStores, durability: Durability? = nil, _ body: (DaemonHarness) async throws -> T
    ) async throws -> T {
        let daemon = try await stores.daemon(stores.shop, durability: durability)
        let result = try await body(daemon)
        try await daemon.stop()
        return result
    }

    /// Spawn to `READY=1`: the daemon on the shop's store, beside a bare process that says it is
    /// ready as soon as it runs, started the same way.
    static func startup(stores: CounterStores, starts: Int, report: inout Report) async throws {
        let bench = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let bare = try DaemonHarness(arguments: ["--bare-start"], executable: bench)
        let daemon = try DaemonHarness(arguments: CounterWorkload.mockDevices + ["--log-level", "warning"])
        try await stores.copy(stores.shop, to: daemon)
        var figures = [Histogram<UInt64>.nanoseconds(), Histogram<UInt64>.nanoseconds()]
        for _ in 0..<starts {
            for (index, process) in [bare, daemon].enumerated() {
                let started = Nanos.now()
                try await process.start()
                _ = figures[index].record(Nanos.now() - started)
                _ = try await process.stop()
            }
        }
        report.latency("baseline: a bare process, spawn → READY=1", figures[0])
        report.latency(
            "start to ready (spawn → READY=1), \(stores.shopSize) products", figures[1],
            target: .percentile(50, of: figures[1], atMost: .milliseconds(200)))
    }
}
