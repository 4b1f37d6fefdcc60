import Foundation
import Histogram
import ScanBridgeTesting

/// `make bench`: end-to-end figures through the real socket of a release `scanbridged`,
/// each beside a baseline measured in the same run on the same machine.
@main
struct ScanBridgeBench {
    static let scenarios = [
        "latency", "sparse", "throughput", "memory", "startup", "catalog", "tap", "wedge", "camera", "link-order",
        "hostile", "gateway",
    ]

    static func main() async throws {
        let arguments = CommandLine.arguments
        let quick = arguments.contains("--quick")
        // `--socket PATH`: only the throughput scenario, against a daemon already running
        // there with a `mock:bench` barcode device (for profiling it); `--events N` of them.
        if let socket = value(of: "--socket", in: arguments) {
            let events = value(of: "--events", in: arguments).flatMap { Int($0) } ?? 200_000
            let (rate, lost) = try await Scenarios.throughput(socketPath: socket, events: events, subscribers: 8)
            print(String(format: "%.0f events/s to 8 subscribers, %d lost", rate, lost))
            return
        }
        // `--serve-design-model DIRECTORY --subscribers N`: the latency scenarios' baseline in a
        // process of its own, as the daemon is (DesignModel.injectToScanLatency starts it).
        if let directory = value(of: "--serve-design-model", in: arguments) {
            let subscribers = value(of: "--subscribers", in: arguments).flatMap { Int($0) } ?? 8
            try await DesignModel.serveOneRun(directory: URL(fileURLWithPath: directory), subscribers: subscribers)
            return
        }
        // `--attack SOCKET`: the hostile scenario's attacker, in a process of its own, as
        // another user when the benchmark can (ScanBridgeBench.hostile starts it).
        if let socket = value(of: "--attack", in: arguments) {
            HostileClient.attack(socketPath: socket, only: attacks(in: arguments))
        }
        // `--latency PATH`: only the latency scenario at 1,000/s, against a daemon already running
        // there with a `mock:bench` barcode device (for profiling it); `--events N` of them.
        if let socket = value(of: "--latency", in: arguments) {
            let events = value(of: "--events", in: arguments).flatMap { Int($0) } ?? 20_000
            let latency = try await Scenarios.injectToScanLatency(
                socketPath: socket, every: .milliseconds(1), count: events, subscribers: 8)
            var report = Report()
            report.latency("scan.inject → scan, 1,000/s, 8 subscribers", latency, target: "p50 ≤ 200 µs, p99 ≤ 1 ms")
            report.print()
            return
        }
        // `--lookups DATABASE [--hot N]`: only the in-process lookups, on a catalog imported
        // earlier (for profiling them; codes drawn from the bench catalog's barcodes).
        if let databasePath = value(of: "--lookups", in: arguments) {
            let hot = value(of: "--hot", in: arguments).flatMap { Int($0) }
            let (lookup, _) = try await CatalogScenarios.inProcessLookups(
                databasePath: databasePath, catalogSize: hot, count: 100_000)
            var report = Report()
            report.latency(
                "ProductLookup in process, \(hot.map { "the first \($0)" } ?? "any") products", lookup,
                target: "p99 ≤ 20 µs")
            report.print()
            return
        }
        // `--round-trips SOCKET [--catalog N]`: only the socket's round trips, against a daemon
        // already running there on the bench catalog of N products (1,000,000 unless told).
        if let socket = value(of: "--round-trips", in: arguments) {
            let size = value(of: "--catalog", in: arguments).flatMap { Int($0) } ?? 1_000_000
            var report = Report()
            try await socketRoundTrips(socketPath: socket, catalogSize: size, report: &report)
            report.print()
            return
        }
        // `--only latency,memory`: a subset of the scenarios.
        let only =
            value(of: "--only", in: arguments).map { Set($0.split(separator: ",").map(String.init)) }
            ?? Set(scenarios)
        let scale = quick ? 10 : 1
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("scanbridge-bench-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var report = Report()
        print("ScanBridge benchmarks (\(quick ? "quick" : "full") run, binaries in \(DaemonHarness.productsDirectory.path))")

        if only.contains("latency") {
            let pingPong = try await Scenarios.pingPongBaseline(directory: directory, count: 20_000 / scale)
            report.latency("baseline: bare Unix-socket ping-pong", pingPong, target: "")
            let model = try await DesignModel.injectToScanLatency(
                directory: directory, every: .milliseconds(1), count: 20_000 / scale, subscribers: 8)
            report.latency(
                "baseline: the design at its leanest (DesignModel, own process), 1,000/s, 8 subscribers",
                model, target: "")
            for durability in Durability.allCases {
                let daemon = try await freshDaemon(durability: durability)
                let latency = try await Scenarios.injectToScanLatency(
                    socketPath: daemon.socketPath, every: .milliseconds(1), count: 20_000 / scale, subscribers: 8)
                report.latency(
                    "scan.inject → scan, 1,000/s, 8 subscribers, durability \(durability)", latency,
                    target: durability.latencyTarget)
                try await daemon.stop()
            }
        }
        if only.contains("sparse") {
            try await sparse(directory: directory, scans: quick ? 5 : 30, report: &report)
        }
        if only.contains("throughput") {
            let echoRate = try await Scenarios.echoThroughput(directory: directory, lines: 400_000 / scale)
            report.figure("baseline: bare Unix-socket echo", String(format: "%.0f lines/s", echoRate), target: "")
            for durability in Durability.allCases {
                let daemon = try await freshDaemon(durability: durability)
                let (rate, lost) = try await Scenarios.throughput(
                    socketPath: daemon.socketPath, events: 200_000 / scale, subscribers: 8)
                report.figure(
                    "sustained events/s to 8 subscribers, durability \(durability)",
                    String(format: "%.0f events/s, %d lost", rate, lost), target: durability.throughputTarget)
                try await daemon.stop()
            }
        }
        if only.contains("memory") {
            let daemon = try await freshDaemon()
            let memory = try await Scenarios.memoryWithStalledSubscriber(daemon: daemon, events: 1_000_000 / scale)
            report.figure(
                "RSS after \(1_000_000 / scale) events, 1 stalled subscriber",
                String(format: "%.1f MB (peak %.1f MB, heap %.1f MB)", memory.rssMB, memory.peakMB, memory.anonymousMB),
                target: "≤ 40 MB")
            try await daemon.stop()
        }
        if only.contains("startup") {
            var readiness = Histogram<UInt64>.nanoseconds()
            let daemon = try DaemonHarness(arguments: ["--mock", "barcode", "--log-level", "warning"])
            for _ in 0..<(quick ? 3 : 10) {
                let started = Nanos.now()
                try await daemon.start()
                _ = readiness.record(Nanos.now() - started)
                try await daemon.stop()
            }
            report.latency("start to ready (spawn → READY=1)", readiness, target: "≤ 200 ms")
        }
        if only.contains("catalog") {
            try await catalog(directory: directory, size: 1_000_000 / scale, report: &report)
        }
        if only.contains("tap") {
            try await tap(taps: 200 / scale, report: &report)
        }
        if only.contains("wedge") {
            let floor = try await WedgeScenarios.fifoBaseline(count: 2_000 / scale)
            report.latency("baseline: an Enter's bytes through a bare FIFO to a thread", floor, target: "")
            let wedge = try await WedgeScenarios.terminatorToEvent(count: 2_000 / scale)
            report.latency("keyboard wedge: Enter on the node → scan, 200 labels/s", wedge, target: "p99 ≤ 1 ms")
            let perKey = try WedgeScenarios.decodeCostPerKey(labels: 20_000 / scale)
            report.figure("keyboard wedge: decoding one key (xkbcommon, bursts)", String(format: "%.0f ns", perKey), target: "")
        }
        if only.contains("camera") {
            try await camera(directory: directory, quick: quick, report: &report)
        }
        if only.contains("link-order") {
            try await linkOrder(scale: scale, report: &report)
        }
        if only.contains("hostile") {
            try await hostile(scans: 6_000 / scale, attacks: attacks(in: arguments), report: &report)
        }
        if only.contains("gateway") {
            try await gateway(scale: scale, report: &report)
        }
        report.print()
    }

    /// A million-product catalog: import from CSV, then lookups through the socket and in process.
    static func catalog(directory: URL, size: Int, report: inout Report) async throws {
        let csv = directory.appendingPathComponent("catalog.csv")
        try CatalogScenarios.writeCatalog(to: csv, count: size)
        let daemon = try await freshDaemon()
        let imported = try await CatalogScenarios.importCatalog(csv, daemon: daemon)
        report.figure(
            "products import of \(size) CSV rows",
            String(
                format: "%.1f s (%.0f rows/s), peak RSS CLI %.0f MB, daemon %.0f MB", imported.seconds,
                Double(size) / imported.seconds, imported.cliPeakMB, imported.daemonPeakMB), target: "≤ 30 s, bounded memory")
        // Lookups are measured in the steady state a shop runs in: the daemon started on the
        // catalog imported earlier, not in the seconds after a million-row import.
        try await daemon.stop()
        try await daemon.start()
        try await CatalogScenarios.settle(daemon: daemon)
        let baseline = try await Scenarios.pingPongBaseline(directory: directory, count: 20_000)
        report.latency("baseline: bare Unix-socket ping-pong", baseline, target: "")
        try await socketRoundTrips(socketPath: daemon.socketPath, catalogSize: size, report: &report)
        try await daemon.stop()
        let hot = min(size, 10_000)
        let (lookup, floor) = try await CatalogScenarios.inProcessLookups(
            databasePath: daemon.databasePath, catalogSize: size, count: 100_000)
        let (lookupHot, _) = try await CatalogScenarios.inProcessLookups(
            databasePath: daemon.databasePath, catalogSize: hot, count: 100_000)
        report.latency("baseline: an empty async call", floor, target: "")
        report.latency("ProductLookup in process, any of \(size)", lookup, target: "p99 ≤ 20 µs")
        report.latency("ProductLookup in process, \(hot) best sellers", lookupHot, target: "p99 ≤ 20 µs")
        let (lookupUnknown, _) = try await CatalogScenarios.inProcessLookups(
            databasePath: daemon.databasePath, catalogSize: size, count: 100_000, unknown: true)
        report.latency("ProductLookup in process, unknown labels", lookupUnknown, target: "")
        try await keyFilterComparison(databasePath: daemon.databasePath, catalogSize: size, report: &report)
    }

    /// The catalog's key filter weighed: the same lookups without it, known codes (where it
    /// can only cost) and unknown ones (where it saves a read), interleaved so that both
    /// sides share the machine's state.
    static func keyFilterComparison(databasePath: String, catalogSize size: Int, report: inout Report) async throws {
        for unknown in [false, true] {
            var with = Histogram<UInt64>.nanoseconds()
            var without = with
            for _ in 0..<3 {
                for filtersKeys in [true, false] {
                    let (lookups, _) = try await CatalogScenarios.inProcessLookups(
                        databasePath: databasePath, catalogSize: size, count: 30_000, unknown: unknown, filtersKeys: filtersKeys)
                    if filtersKeys { with.add(lookups) } else { without.add(lookups) }
                }
            }
            let codes = unknown ? "unknown labels" : "any of \(size)"
            report.latency("ProductLookup in process, \(codes), key filter", with, target: "")
            report.latency("ProductLookup in process, \(codes), no key filter", without, target: "")
        }
    }

    /// `bridge.hello`, the daemon's floor for a request, then catalog lookups through the socket:
    /// uniformly over the whole catalog (every lookup likely reads pages from the OS), and over
    /// the 10,000 best sellers (what a shop scans most; their pages stay cached).
    static func socketRoundTrips(socketPath: String, catalogSize size: Int, report: inout Report) async throws {
        let hello = try await CatalogScenarios.socketLookups(
            socketPath: socketPath, catalogSize: size, count: 20_000, hello: true)
        report.latency("baseline: bridge.hello through the socket", hello, target: "")
        let hot = min(size, 10_000)
        let socket = try await CatalogScenarios.socketLookups(socketPath: socketPath, catalogSize: size, count: 20_000)
        report.latency("products.lookup through the socket, any of \(size)", socket, target: "p99 ≤ 300 µs")
        let socketHot = try await CatalogScenarios.socketLookups(socketPath: socketPath, catalogSize: hot, count: 20_000)
        report.latency("products.lookup through the socket, \(hot) best sellers", socketHot, target: "p99 ≤ 300 µs")
    }

    /// A counter's rhythm: a scan every two seconds, the machine quiet in between (caches go
    /// cold, idle threads sleep), beside the design's leanest model at the same rhythm.
    static func sparse(directory: URL, scans: Int, report: inout Report) async throws {
        let gap = Duration.seconds(2)
        let model = try await DesignModel.injectToScanLatency(directory: directory, every: gap, count: scans, subscribers: 8)
        report.latency("baseline: the design at its leanest (DesignModel, own process), one every 2 s", model, target: "")
        let daemon = try await freshDaemon()
        let latency = try await Scenarios.injectToScanLatency(
            socketPath: daemon.socketPath, every: gap, count: scans, subscribers: 8)
        report.latency("scan.inject → scan, one every 2 s, 8 subscribers", latency, target: "")
        try await daemon.stop()
    }

    /// NFC taps on a vpcd reader of a private pcscd: the daemon's scan event beside pcsc_scan's
    /// reaction to the same insertion (see `TapScenarios`).
    static func tap(taps: Int, report: inout Report) async throws {
        if let reason = PCSCStack.unavailableReason {
            report.figure("tap-to-event (PC/SC)", "skipped: \(reason)", target: "")
            return
        }
        let figures = try await TapScenarios.tapToEvent(taps: taps)
        report.latency("baseline: pcsc_scan, card on vpcd → \"Card inserted\"", figures.pcscScan, target: "")
        report.latency("tap-to-event: card on vpcd → scan notification", figures.tapToEvent, target: "within pcsc_scan + 5 ms")
        report.figure(
            "tap-to-event − pcsc_scan, same tap (\(taps) taps)", TapScenarios.formatDifferences(figures.differences),
            target: "≤ +5 ms")
    }

    /// A release daemon on a new database, with the `mock:bench` scanner the scenarios inject
    /// on; `durability` sets `journal.durability` (the daemon's default, `full`, when nil).
    static func freshDaemon(executable: URL? = nil, durability: Durability? = nil) async throws -> DaemonHarness {
        let arguments = ["--mock", "barcode:bench", "--log-level", "warning"]
        var daemon = try DaemonHarness(arguments: arguments, executable: executable)
        if let durability {
            let config = try daemon.write("scanbridge.yaml", "journal:\n  durability: \(durability)\n")
            daemon = try DaemonHarness.reusing(daemon, arguments: arguments + ["--config", config])
        }
        try await daemon.start()
        return daemon
    }

    /// `journal.durability`, both measured in one run: `full` (the default) has targets of
    /// its own, since every group commit waits for an fsync that `normal` does not make.
    enum Durability: String, CaseIterable, CustomStringConvertible {
        case full, normal

        var description: String { rawValue }

        var latencyTarget: String {
            switch self {
            case .full: "p50 ≤ 600 µs, p99 ≤ 2 ms"
            case .normal: "p50 ≤ 200 µs, p99 ≤ 1 ms"
            }
        }

        var throughputTarget: String {
            switch self {
            case .full: "≥ 30,000/s, 0 lost"
            case .normal: "≥ 50,000/s, 0 lost"
            }
        }
    }

    /// `--attacks garbage,flood`: some of the hostile client's attacks (all of them without it).
    static func attacks(in arguments: [String]) -> Set<String> {
        value(of: "--attacks", in: arguments).map { Set($0.split(separator: ",").map(String.init)) }
            ?? Set(HostileClient.attacks)
    }

    static func value(of option: String, in arguments: [String]) -> String? {
        guard let index = arguments.firstIndex(of: option), index + 1 < arguments.count else { return nil }
        return arguments[index + 1]
    }
}

/// The table printed at the end.
struct Report {
    private var rows: [(String, String, String)] = []

    mutating func latency(_ name: String, _ histogram: Histogram<UInt64>, target: String) {
        let figures = [50.0, 99.0, 99.9].map {
            "p\($0 == 99.9 ? "99.9" : String(Int($0))) \(Self.format(histogram.valueAtPercentile($0)))"
        }
        rows.append((name, figures.joined(separator: "  "), target))
    }

    mutating func figure(_ name: String, _ value: String, target: String) {
        rows.append((name, value, target))
    }

    func print() {
        let widths = (rows.map(\.0.count).max() ?? 0, rows.map(\.1.count).max() ?? 0)
        Swift.print("")
        Swift.print("| " + "scenario".padding(widths.0) + " | " + "measured".padding(widths.1) + " | target |")
        Swift.print(
            "|" + String(repeating: "-", count: widths.0 + 2) + "|" + String(repeating: "-", count: widths.1 + 2) + "|--------|")
        for (name, value, target) in rows {
            Swift.print("| " + name.padding(widths.0) + " | " + value.padding(widths.1) + " | \(target) |")
        }
    }

    static func format(_ nanos: UInt64) -> String {
        if nanos >= 10_000_000 { return String(format: "%.0f ms", Double(nanos) / 1e6) }
        if nanos >= 1_000_000 { return String(format: "%.2f ms", Double(nanos) / 1e6) }
        return String(format: "%.0f µs", Double(nanos) / 1e3)
    }
}

extension String {
    func padding(_ width: Int) -> String {
        count >= width ? self : self + String(repeating: " ", count: width - count)
    }
}
