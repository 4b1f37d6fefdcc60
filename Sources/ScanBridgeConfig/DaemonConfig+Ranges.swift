extension DaemonConfig {
    /// Refuses the first number of the daemon's own keys out of its range, naming its key, its
    /// value and the range, so the daemon does not start on it; the other modules' sections
    /// check theirs as they decode. A timeout too long would hold a scan for it; one too short
    /// would time out every out-of-process handler. The digits and decimals of
    /// `catalog.variable_measure` layouts are checked with their layout
    /// (`variableMeasureRegion()`), where the lengths they must add up to are known.
    package func checkRanges() throws {
        let numbers: [(key: String, value: Int?, range: ClosedRange<Int>)] = [
            ("handlers.timeout_ms", handlers.timeoutMs, 10...60_000)
        ]
        for (key, value, range) in numbers {
            guard let value, !range.contains(value) else { continue }
            throw LoadError(description: "\(key) is \(value); it must be between \(range.lowerBound) and \(range.upperBound)")
        }
    }
}
