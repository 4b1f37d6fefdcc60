package import Histogram

extension Histogram<UInt64> {
    /// Durations in nanoseconds, up to a minute, to three significant digits: how the
    /// benchmarks record latencies (HdrHistogram), so that their percentiles compare.
    package static func nanoseconds() -> Histogram<UInt64> {
        Histogram(highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)
    }
}
