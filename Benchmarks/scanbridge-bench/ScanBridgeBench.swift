import Foundation
import Histogram
import ScanBridgeStore
import ScanBridgeTesting

/// `make bench`: end-to-end figures through the real socket of a release `scanbridged`,
/// each beside a baseline measured in the same run on the same machine.
@main
struct ScanBridgeBench {
    static let scenarios = [
        "latency", "sparse", "throughput", "memory", "startup", "catalog", "tap", "wedge", "camera", "link-order",
        "hostile", "gateway", "hostile-gateway", "shop",
    ]

    static func main() async throws {
        let arguments = CommandLine.arguments
        let quick = arguments.contains("--quick")
        // `--bare-start`: the startup scenario's baseline, a process that says it is ready as
        // soon as it runs (DaemonHarness starts it as it starts the daemon).
        if arguments.contains("--bare-start") { BareStart.run() }
        if arguments.contains("--old-decoder-reads") {
            try printOldDecoderReads()
            return
        }
        // `--make-store PATH [--catalog N]`: the shop's store of N products (a million unless
        // told), its people and the demo's data, written to PATH, for a daemon to be profiled on.
        if let path = value(of: "--make-store", in: arguments) {
            let size = value(of: "--catalog", in: arguments).flatMap { Int($0) } ?? 1_000_000
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("scanbridge-bench-\(getpid())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            try await CounterStores(directory: directory, shopSize: size).write(.shop(size: size), to: path)
            print("the shop's store of \(size) products: \(path)")
            return
        }
        // `--socket PATH [--catalog N]`: only the throughput scenario, against a daemon already
        // running there with the counter's mock devices (for profiling it): the mix when its
        // store is the one `--make-store` writes, labels no product has without `--catalog`;
        // `--events N` of them.
        if let socket = value(of: "--socket", in: arguments) {
            let events = value(of: "--events", in: arguments).flatMap { Int($0) } ?? 200_000
            let size = value(of: "--catalog", in: arguments).flatMap { Int($0) }
            let workload = CounterWorkload(mix: .counter, catalog: size.map { .shop(size: $0) } ?? .none)
            let figures = try await Scenarios.throughput(socketPath: socket, events: events, subscribers: 8, workload: workload)
            var report = Report()
            report.throughput("sustained events/s to 8 subscribers, \(workload.description)", figures)
            report.finish(keepGoing: true)
        }
        // `--serve-design-model DIRECTORY --subscribers N`: the latency scenarios' baseline in a
        // process of its own, as the daemon is (DesignModel.injectToScanLatency starts it).
        if let directory = value(of: "--serve-design-model", in: arguments) {
            let subscribers = value(of: "--subscribers", in: arguments).flatMap { Int($0) } ?? 8
            try await DesignModel.serveOneRun(
                directory: URL(fileURLWithPath: directory), subscribers: subscribers, syncs: arguments.contains("--syncs"))
            return
        }
        // `--attack SOCKET`: the hostile scenario's attacker, in a process of its own, as
        // another user when the benchmark can (ScanBridgeBench.hostile starts it).
        if let socket = value(of: "--attack", in: arguments) {
            HostileClient.attack(socketPath: socket, only: attacks(in: arguments))
        }
        // `--attack-gateway ADDRESS --token SECRET`: the hostile-gateway scenario's attacker.
        if let address = value(of: "--attack-gateway", in: arguments) {
            HostileGatewayClient.attack(
                address: address, token: value(of: "--token", in: arguments) ?? "",
                only: attacks(in: arguments, all: HostileGatewayClient.attacks))
        }
        // `--latency PATH [--catalog N]`: only the latency scenario at 1,000/s, against a daemon
        // already running there with the counter's mock devices (for profiling it), on the
        // store `--make-store` writes (labels no product has without `--catalog`); `--events N`
        // of them.
        if let socket = value(of: "--latency", in: arguments) {
            let events = value(of: "--events", in: arguments).flatMap { Int($0) } ?? 20_000
            let size = value(of: "--catalog", in: arguments).flatMap { Int($0) }
            let workload = CounterWorkload(mix: .counter, catalog: size.map { .shop(size: $0) } ?? .none)
            let latency = try await Scenarios.injectToScanLatency(
                socketPath: socket, every: .milliseconds(1), count: events, subscribers: 8, workload: workload)
            var report = Report()
            report.delivery("scan.inject → scan, \(workload.description), 1,000/s, 8 subscribers", latency)
            report.finish(keepGoing: true)
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
                target: .percentile(99, of: lookup, atMost: .microseconds(20)))
            report.finish(keepGoing: true)
        }
        // `--round-trips SOCKET [--catalog N]`: only the socket's round trips, against a daemon
        // already running there on the bench catalog of N products (1,000,000 unless told).
        if let socket = value(of: "--round-trips", in: arguments) {
            let size = value(of: "--catalog", in: arguments).flatMap { Int($0) } ?? 1_000_000
            var report = Report()
            try await socketRoundTrips(socketPath: socket, catalogSize: size, report: &report)
            report.finish(keepGoing: true)
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

        let stores = CounterStores(directory: directory, shopSize: 1_000_000 / scale)
        let counter = CounterWorkload(mix: .counter, catalog: stores.shop)

        if only.contains("latency") {
            try await latency(stores: stores, directory: directory, count: 20_000 / scale, report: &report)
        }
        if only.contains("sparse") {
            try await sparse(stores: stores, directory: directory, scans: quick ? 5 : 30, report: &report)
        }
        if only.contains("throughput") {
            try await throughput(stores: stores, directory: directory, events: 200_000 / scale, report: &report)
        }
        if only.contains("memory") {
            try await memory(stores: stores, events: 1_000_000 / scale, report: &report)
        }
        if only.contains("startup") {
            try await startup(stores: stores, starts: quick ? 3 : 10, report: &report)
        }
        if only.contains("catalog") {
            try await catalog(stores: stores, directory: directory, size: 1_000_000 / scale, report: &report)
        }
        if only.contains("tap") {
            try await tap(stores: stores, taps: 200 / scale, report: &report)
        }
        if only.contains("wedge") {
            let floor = try await WedgeScenarios.fifoBaseline(count: 2_000 / scale)
            report.latency("baseline: an Enter's bytes through a bare FIFO to a thread", floor)
            let wedge = try await WedgeScenarios.terminatorToEvent(stores: stores, count: 2_000 / scale)
            report.delivery(
                "keyboard wedge: Enter on the node → scan, 200 labels/s, \(wedge.description)", wedge.delivery,
                target: .percentile(99, of: wedge.delivery.latency, atMost: .milliseconds(1)))
            let perKey = try WedgeScenarios.decodeCostPerKey(labels: 20_000 / scale)
            report.figure("keyboard wedge: decoding one key (xkbcommon, bursts)", String(format: "%.0f ns", perKey))
        }
        if only.contains("camera") {
            try await camera(directory: directory, quick: quick, report: &report)
        }
        if only.contains("link-order") {
            try await linkOrder(stores: stores, workload: counter, scale: scale, report: &report)
        }
        if only.contains("hostile") {
            try await hostile(
                stores: stores, workload: counter, scans: 6_000 / scale, attacks: attacks(in: arguments), report: &report)
        }
        if only.contains("gateway") {
            try await gateway(stores: stores, workload: counter, scale: scale, report: &report)
        }
        if only.contains("hostile-gateway") {
            try await hostileGateway(
                stores: stores, workload: counter, scans: 6_000 / scale,
                attacks: attacks(in: arguments, all: HostileGatewayClient.attacks), report: &report)
        }
        if only.contains("shop") {
            try await shop(directory: directory, quick: quick, report: &report)
        }
        report.finish(keepGoing: arguments.contains("--keep-going"))
    }

    /// A million-product catalog: import from CSV, then lookups through the socket and in process.
    static func catalog(stores: CounterStores, directory: URL, size: Int, report: inout Report) async throws {
        let csv = directory.appendingPathComponent("catalog.csv")
        try CatalogScenarios.writeCatalog(to: csv, count: size)
        let bare = try await CatalogScenarios.bareInserts(count: size, directory: directory)
        report.figure(
            "baseline: \(size) rows into the same table, a bare SQLite insert loop",
            String(format: "%.1f s (%.0f rows/s)", bare, Double(size) / bare))
        let daemon = try await stores.daemon(.none)
        let imported = try await CatalogScenarios.importCatalog(csv, daemon: daemon)
        report.figure(
            "products import of \(size) CSV rows",
            String(
                format: "%.1f s (%.0f rows/s), peak RSS CLI %.0f MB, daemon %.0f MB", imported.seconds,
                Double(size) / imported.seconds, imported.cliPeakMB, imported.daemonPeakMB),
            target: .all(
                .atMost(imported.seconds, 30, "≤ 30 s"),
                .atMost(imported.seconds / bare, 3, String(format: "≤ 3× the bare loop's (%.1f×)", imported.seconds / bare))))
        // Lookups are measured in the steady state a shop runs in: the daemon started on the
        // catalog imported earlier, not in the seconds after a million-row import.
        try await daemon.stop()
        try await daemon.start()
        try await CatalogScenarios.settle(daemon: daemon)
        let baseline = try await Scenarios.pingPongBaseline(directory: directory, count: 20_000)
        report.latency("baseline: bare Unix-socket ping-pong", baseline)
        try await socketRoundTrips(socketPath: daemon.socketPath, catalogSize: size, report: &report)
        try await daemon.stop()
        let hot = min(size, 10_000)
        let (lookup, floor) = try await CatalogScenarios.inProcessLookups(
            databasePath: daemon.databasePath, catalogSize: size, count: 100_000)
        let (lookupHot, _) = try await CatalogScenarios.inProcessLookups(
            databasePath: daemon.databasePath, catalogSize: hot, count: 100_000)
        report.latency("baseline: an empty async call", floor)
        report.latency(
            "ProductLookup in process, any of \(size)", lookup, target: .percentile(99, of: lookup, atMost: .microseconds(20)))
        report.latency(
            "ProductLookup in process, \(hot) best sellers", lookupHot,
            target: .percentile(99, of: lookupHot, atMost: .microseconds(20)))
        let (lookupUnknown, _) = try await CatalogScenarios.inProcessLookups(
            databasePath: daemon.databasePath, catalogSize: size, count: 100_000, unknown: true)
        report.latency("ProductLookup in process, unknown labels", lookupUnknown)
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
            report.latency("ProductLookup in process, \(codes), key filter", with)
            report.latency("ProductLookup in process, \(codes), no key filter", without)
        }
    }

    /// `bridge.hello`, the daemon's floor for a request, then catalog lookups through the socket:
    /// uniformly over the whole catalog (every lookup likely reads pages from the OS), and over
    /// the 10,000 best sellers (what a shop scans most; their pages stay cached).
    static func socketRoundTrips(socketPath: String, catalogSize size: Int, report: inout Report) async throws {
        let hello = try await CatalogScenarios.socketLookups(
            socketPath: socketPath, catalogSize: size, count: 20_000, hello: true)
        report.latency("baseline: bridge.hello through the socket", hello)
        let hot = min(size, 10_000)
        let socket = try await CatalogScenarios.socketLookups(socketPath: socketPath, catalogSize: size, count: 20_000)
        report.latency(
            "products.lookup through the socket, any of \(size)", socket,
            target: .percentile(99, of: socket, atMost: .microseconds(300)))
        let socketHot = try await CatalogScenarios.socketLookups(socketPath: socketPath, catalogSize: hot, count: 20_000)
        report.latency(
            "products.lookup through the socket, \(hot) best sellers", socketHot,
            target: .percentile(99, of: socketHot, atMost: .microseconds(300)))
    }

    /// NFC taps on a vpcd reader of a private pcscd: the daemon's scan event beside pcsc_scan's
    /// reaction to the same insertion (see `TapScenarios`).
    static func tap(stores: CounterStores, taps: Int, report: inout Report) async throws {
        if let reason = PCSCStack.unavailableReason {
            report.figure("tap-to-event (PC/SC)", "skipped: \(reason)")
            return
        }
        let figures = try await TapScenarios.tapToEvent(stores: stores, taps: taps)
        report.latency("baseline: pcsc_scan, card on vpcd → \"Card inserted\"", figures.pcscScan)
        let name = "tap-to-event: card on vpcd → scan notification, a linked card, its customer identified"
        report.latency(name, figures.tapToEvent)
        let all = taps + TapScenarios.warmup
        report.figure(name, "\(figures.identified) of \(2 * all) taps (plain and secure) identified their customer")
        report.lost(2 * all - figures.identified, in: name)
        report.figure(
            "tap-to-event − pcsc_scan, same tap (\(taps) taps)", TapScenarios.formatDifferences(figures.differences),
            target: .atMost(Double(TapScenarios.percentile(99, of: figures.differences)), 5e6, "p99 ≤ +5 ms"))
        let secure = "tap-to-event: NTAG 424 DNA → scan notification, its SUN message verified, its customer identified"
        report.latency(secure, figures.secureTapToEvent)
        report.figure(secure, "\(figures.verified) of \(all) secure taps verified")
        report.lost(all - figures.verified, in: secure)
        // What verifying costs a tap: its Type 4 read, AES and CMAC, the counter's write.
        let extra =
            TapScenarios.percentile(99, of: figures.secureDifferences) - TapScenarios.percentile(99, of: figures.differences)
        report.figure(
            "verified tap − pcsc_scan, same tap (\(taps) taps)", TapScenarios.formatDifferences(figures.secureDifferences),
            target: .atMost(
                Double(extra), 10e6, String(format: "p99 ≤ +10 ms over a plain UID tap's (%+.2f ms)", Double(extra) / 1e6)))
    }

    /// `journal.durability`, both measured in one run: `full` (the default) has targets of
    /// its own, since every group commit waits for an fsync that `normal` does not make.
    enum Durability: String, CaseIterable, CustomStringConvertible {
        case full, normal

        var description: String { rawValue }

        /// The store's own name for it.
        var store: StoreDatabase.Durability { StoreDatabase.Durability(rawValue: rawValue)! }

        /// What `DesignModel` does at each commit for this durability.
        var modelCommit: String {
            switch self {
            case .full: "each commit synced"
            case .normal: "no sync"
            }
        }
    }

    /// `--attacks garbage,flood`: some of the hostile client's attacks (all of them without it).
    /// `--attacks a,b`: some of an attacker's attacks; `all` of them without it.
    static func attacks(in arguments: [String], all: [String] = HostileClient.attacks) -> Set<String> {
        value(of: "--attacks", in: arguments).map { Set($0.split(separator: ",").map(String.init)) } ?? Set(all)
    }

    static func value(of option: String, in arguments: [String]) -> String? {
        guard let index = arguments.firstIndex(of: option), index + 1 < arguments.count else { return nil }
        return arguments[index + 1]
    }
}
