import Histogram
import ScanBridgeTesting

/// What a latency run measured: each arrival's latency, how many of the scans injected
/// reached every subscriber, and what the daemon's answers said each scan resolved to.
struct Delivery: Sendable {
    var latency = Histogram<UInt64>.nanoseconds()
    /// Scans injected (the warm-up's included) times subscribers.
    var expected = 0
    var arrived = 0
    /// Answers whose resolution was not the workload's for that read, or that were errors.
    var misresolved = 0
    /// The resolutions of the answers, `handler status`, counted.
    var outcomes: [String: Int] = [:]
    /// The first error the daemon answered, if any.
    var firstError: String?

    var lost: Int { expected - arrived }
    /// Every scan reached every subscriber, each resolved as the workload says.
    var isWhole: Bool { lost == 0 && misresolved == 0 }

    mutating func add(_ other: Delivery) {
        latency.add(other.latency)
        expected += other.expected
        arrived += other.arrived
        misresolved += other.misresolved
        outcomes.merge(other.outcomes, uniquingKeysWith: +)
        firstError = firstError ?? other.firstError
    }

    /// `20,000 of 20,000 arrived` (and what went wrong).
    var summary: String {
        var text = "\(arrived) of \(expected) arrived"
        if misresolved > 0 {
            let seen = outcomes.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
            text += ", \(misresolved) resolved otherwise than the workload says (resolutions: \(seen))"
            if let firstError { text += "; the first error answered: \(firstError)" }
        }
        return text
    }
}
