package import CoreMetrics

/// The store's state as gauges, set from its status right before each scrape: the copy's lag
/// grows with every commit while the store is away, when nothing else would set it.
package struct StoreGauges: Sendable {
    private let up: Meter
    private let copyLag: Meter
    private let rowsRefused: Meter

    package init(factory: any MetricsFactory) {
        up = Meter(label: MetricSeries.storeUp.name, factory: factory)
        copyLag = Meter(label: MetricSeries.storeCopyLag.name, factory: factory)
        rowsRefused = Meter(label: MetricSeries.storeRowsRefused.name, factory: factory)
    }

    package func record(_ status: StoreStatus) {
        up.set(status.state == .ok ? 1 : 0)
        copyLag.set(Int64(clamping: status.copyLag))
        rowsRefused.set(status.refusedRows)
    }
}
