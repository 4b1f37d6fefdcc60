import CoreMetrics

extension Timer {
    /// Records `duration` (a negative one as zero).
    package func record(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        recordNanoseconds(max(0, seconds &* 1_000_000_000 &+ attoseconds / 1_000_000_000))
    }
}
