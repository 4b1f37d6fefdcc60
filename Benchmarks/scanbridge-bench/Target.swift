import Foundation
import Histogram

/// What a row must meet, declared once where the row is made, with the bench's own verdict:
/// the row prints PASS or MISS beside its figure, and a miss fails the run. Targets are ratios
/// to a baseline measured in the same run wherever one exists, since this machine's noise
/// moves both alike; absolute bounds only where the product promises one.
struct Target: Sendable {
    /// The target in words, with the figure it was judged on when the row shows another.
    let words: String
    let met: Bool
    /// A spread measured in the same run (two baselines' ratio), beside which a miss is read.
    var spread: Double?

    init(_ words: String, met: Bool, spread: Double? = nil) {
        self.words = words
        self.met = met
        self.spread = spread
    }

    var verdict: String {
        guard !met else { return "PASS" }
        guard let spread else { return "MISS" }
        return String(format: "MISS (the same run's baselines differ by %.2f×)", spread)
    }

    /// Several bounds on one row: met when every one is.
    static func all(_ targets: Target...) -> Target {
        Target(targets.map(\.words).joined(separator: ", "), met: targets.allSatisfy(\.met))
    }

    /// A percentile under an absolute bound, where the product promises one.
    static func percentile(_ percentile: Double, of histogram: Histogram<UInt64>, atMost bound: Duration) -> Target {
        let nanos = UInt64(bound.components.seconds) * 1_000_000_000 + UInt64(bound.components.attoseconds / 1_000_000_000)
        return Target(
            "\(Self.name(percentile)) ≤ \(Report.format(nanos))", met: histogram.valueAtPercentile(percentile) <= nanos)
    }

    /// `p50 ≤ 2× the model's`: a percentile as a ratio to the same percentile of a baseline of
    /// the same run (`of`: whose, in words).
    static func ratio(
        _ percentile: Double, of histogram: Histogram<UInt64>, to baseline: Histogram<UInt64>, atMost limit: Double,
        of whose: String
    ) -> Target {
        let ratio = ScanBridgeBench.ratio(histogram, baseline, at: percentile)
        return Target(
            String(format: "%@ ≤ %@× %@ (%.2f×)", Self.name(percentile), Self.number(limit), whose, ratio), met: ratio <= limit)
    }

    /// `p50 ≤ 2×, p99 ≤ 3× the model's`: the usual pair.
    static func ratios(
        _ histogram: Histogram<UInt64>, to baseline: Histogram<UInt64>, p50: Double, p99: Double, of whose: String
    ) -> Target {
        .all(
            ratio(50, of: histogram, to: baseline, atMost: p50, of: whose),
            ratio(99, of: histogram, to: baseline, atMost: p99, of: whose))
    }

    /// A figure under a bound, `words` saying it as the row shows it.
    static func atMost(_ value: Double, _ bound: Double, _ words: String) -> Target {
        Target(words, met: value <= bound)
    }

    /// A figure over a bound, `words` saying it as the row shows it.
    static func atLeast(_ value: Double, _ bound: Double, _ words: String) -> Target {
        Target(words, met: value >= bound)
    }

    static func name(_ percentile: Double) -> String {
        percentile == percentile.rounded() ? "p\(Int(percentile))" : "p\(percentile)"
    }

    static func number(_ value: Double) -> String {
        value == value.rounded() ? String(Int(value)) : String(format: "%g", value)
    }
}
