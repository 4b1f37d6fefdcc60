import Atomics
import CoreMetrics

/// The counters of one labelled series, one slot per label set of a bounded table: each is
/// made on its first use and read without a lock after, so counting an event costs an atomic
/// load and the counter's own add.
final class CounterTable: Sendable {
    private let series: MetricSeries
    private let factory: any MetricsFactory
    /// The label values of each slot, in the order of the series' label names.
    private let labelValues: @Sendable (Int) -> [String]
    private let slots: [ManagedAtomicLazyReference<Counter>]

    init(_ series: MetricSeries, factory: any MetricsFactory, count: Int, labelValues: @escaping @Sendable (Int) -> [String]) {
        self.series = series
        self.factory = factory
        self.labelValues = labelValues
        self.slots = (0..<count).map { _ in ManagedAtomicLazyReference() }
    }

    func counter(at slot: Int) -> Counter {
        if let counter = slots[slot].load() { return counter }
        let dimensions = Array(zip(series.labels, labelValues(slot)))
        // Two first uses at once may both make one: the factory gives both the same series.
        return slots[slot].storeIfNilThenLoad(Counter(label: series.name, dimensions: dimensions, factory: factory))
    }
}
