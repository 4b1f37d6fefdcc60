import Foundation
import Histogram

/// The table printed at the end, with the bench's verdict on every row that has a target, and
/// the rows that failed outright: a scenario that lost a scan, or whose scans resolved
/// otherwise than its workload says.
struct Report {
    private var rows: [(name: String, value: String, target: Target?)] = []
    private(set) var failures: [String] = []

    /// The rows whose target was missed.
    var misses: [String] { rows.filter { $0.target?.met == false }.map(\.name) }

    mutating func latency(_ name: String, _ histogram: Histogram<UInt64>, target: Target? = nil) {
        rows.append((name, Self.percentiles(histogram), target))
    }

    /// A latency row, with how many of its scans arrived and what they resolved to.
    mutating func delivery(_ name: String, _ delivery: Delivery, target: Target? = nil) {
        rows.append((name, Self.percentiles(delivery.latency) + "  (" + delivery.summary + ")", target))
        if !delivery.isWhole { failures.append("\(name): \(delivery.summary)") }
    }

    mutating func figure(_ name: String, _ value: String, target: Target? = nil) {
        rows.append((name, value, target))
    }

    /// A throughput row, failing the run when events were lost or resolved otherwise than
    /// the workload says.
    mutating func throughput(_ name: String, _ figures: Throughput, target: Target? = nil) {
        let cpu = figures.cpuPerEvent.map { String(format: ", %.0f µs of the daemon's CPU an event", $0) } ?? ""
        figure(name, String(format: "%.0f events/s%@, %d lost", figures.eventsPerSecond, cpu, figures.lost), target: target)
        lost(figures.lost, in: name)
        if !figures.outcomes.isWhole { failures.append("\(name): \(figures.outcomes.summary)") }
    }

    /// A row that fails the run: `lost` scans of a scenario that counts them.
    mutating func lost(_ lost: Int, in name: String) {
        if lost > 0 { failures.append("\(name): \(lost) lost") }
    }

    /// `p50 ×, p99 ×` of `histogram` against `baseline`'s.
    mutating func ratio(_ name: String, _ histogram: Histogram<UInt64>, _ baseline: Histogram<UInt64>, target: Target? = nil) {
        let value = String(
            format: "p50 %.2f×  p99 %.2f×", ScanBridgeBench.ratio(histogram, baseline, at: 50),
            ScanBridgeBench.ratio(histogram, baseline, at: 99))
        rows.append((name, value, target))
    }

    func print() {
        let widths = (rows.map(\.name.count).max() ?? 0, rows.map(\.value.count).max() ?? 0)
        Swift.print("")
        Swift.print("| " + "scenario".padding(widths.0) + " | " + "measured".padding(widths.1) + " | target | verdict |")
        Swift.print(
            "|" + String(repeating: "-", count: widths.0 + 2) + "|" + String(repeating: "-", count: widths.1 + 2)
                + "|--------|---------|")
        for (name, value, target) in rows {
            Swift.print(
                "| " + name.padding(widths.0) + " | " + value.padding(widths.1) + " | \(target?.words ?? "") | "
                    + "\(target?.verdict ?? "") |")
        }
    }

    /// Prints the table and the verdict, then ends the run: with status 1 when a scan was lost
    /// or misresolved, or when a target was missed (unless `keepGoing`, for exploratory runs).
    func finish(keepGoing: Bool) -> Never {
        print()
        let judged = rows.filter { $0.target != nil }.count
        Swift.print("\n\(judged - misses.count) of \(judged) targets met, \(misses.count) missed")
        for miss in misses { Swift.print("MISS: \(miss)") }
        if !failures.isEmpty { Swift.print("FAILED: " + failures.joined(separator: "; ")) }
        exit(!failures.isEmpty || (!misses.isEmpty && !keepGoing) ? 1 : 0)
    }

    static func percentiles(_ histogram: Histogram<UInt64>) -> String {
        [50.0, 99.0, 99.9].map {
            "p\($0 == 99.9 ? "99.9" : String(Int($0))) \(format(histogram.valueAtPercentile($0)))"
        }.joined(separator: "  ")
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
