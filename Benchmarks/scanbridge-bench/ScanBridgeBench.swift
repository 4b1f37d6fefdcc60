import Foundation
import Histogram
import ScanBridgeTesting

/// `make bench`: end-to-end figures through the real socket of a release `scanbridged`,
/// each beside a baseline measured in the same run on the same machine.
@main
struct ScanBridgeBench {
    static func main() async throws {
        let arguments = CommandLine.arguments
        let quick = arguments.contains("--quick")
        // `--socket PATH`: only the throughput scenario, against a daemon already running
        // there with a `mock:bench` barcode device (for profiling it).
        if let index = arguments.firstIndex(of: "--socket"), index + 1 < arguments.count {
            let (rate, lost) = try await Scenarios.throughput(socketPath: arguments[index + 1], events: 200_000, subscribers: 8)
            print(String(format: "%.0f events/s to 8 subscribers, %d lost", rate, lost))
            return
        }
        let scale = quick ? 10 : 1
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("scanbridge-bench-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var report = Report()
        print("ScanBridge benchmarks (\(quick ? "quick" : "full") run, binaries in \(DaemonHarness.productsDirectory.path))")

        let pingPong = try await Scenarios.pingPongBaseline(directory: directory, count: 20_000 / scale)
        report.latency("baseline: bare Unix-socket ping-pong", pingPong, target: "")

        let daemon = try DaemonHarness(arguments: ["--mock", "barcode:bench", "--log-level", "warning"])
        try await daemon.start()
        let latency = try await Scenarios.injectToScanLatency(daemon: daemon, rate: 1000, count: 10_000 / scale, subscribers: Int(ProcessInfo.processInfo.environment["SUBS"] ?? "8")!)
        report.latency("scan.inject → scan, 1,000/s, 8 subscribers", latency, target: "p50 ≤ 200 µs, p99 ≤ 1 ms")

        let echoRate = try await Scenarios.echoThroughput(directory: directory, lines: 400_000 / scale)
        report.figure("baseline: bare Unix-socket echo", String(format: "%.0f lines/s", echoRate), target: "")
        let (rate, lost) = try await Scenarios.throughput(socketPath: daemon.socketPath, events: 200_000 / scale, subscribers: 8)
        report.figure("sustained events/s to 8 subscribers", String(format: "%.0f events/s, %d lost", rate, lost),
                      target: "≥ 50,000/s, 0 lost")
        try await daemon.stop()

        let memoryDaemon = try DaemonHarness(arguments: ["--mock", "barcode:bench", "--log-level", "warning"])
        try await memoryDaemon.start()
        let memory = try await Scenarios.memoryWithStalledSubscriber(daemon: memoryDaemon, events: 1_000_000 / scale)
        report.figure("RSS after \(1_000_000 / scale) events, 1 stalled subscriber",
                      String(format: "%.1f MB (peak %.1f MB)", memory.rssMB, memory.peakMB), target: "≤ 40 MB")
        try await memoryDaemon.stop()

        var readiness = Histogram<UInt64>(highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)
        let startup = try DaemonHarness(arguments: ["--mock", "barcode", "--log-level", "warning"])
        for _ in 0..<(quick ? 3 : 10) {
            let started = Nanos.now()
            try await startup.start()
            _ = readiness.record(Nanos.now() - started)
            try await startup.stop()
        }
        report.latency("start to ready (spawn → READY=1)", readiness, target: "≤ 200 ms")
        report.print()
    }
}

/// The table printed at the end.
struct Report {
    private var rows: [(String, String, String)] = []

    mutating func latency(_ name: String, _ histogram: Histogram<UInt64>, target: String) {
        let figures = [50.0, 99.0, 99.9].map { "p\($0 == 99.9 ? "99.9" : String(Int($0))) \(Self.format(histogram.valueAtPercentile($0)))" }
        rows.append((name, figures.joined(separator: "  "), target))
    }

    mutating func figure(_ name: String, _ value: String, target: String) {
        rows.append((name, value, target))
    }

    func print() {
        let widths = (rows.map(\.0.count).max() ?? 0, rows.map(\.1.count).max() ?? 0)
        Swift.print("")
        Swift.print("| " + "scenario".padding(widths.0) + " | " + "measured".padding(widths.1) + " | target |")
        Swift.print("|" + String(repeating: "-", count: widths.0 + 2) + "|" + String(repeating: "-", count: widths.1 + 2) + "|--------|")
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
