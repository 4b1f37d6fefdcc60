package import CoreMetrics
package import Prometheus
import ScanBridgeCore

/// The daemon's metrics: one Prometheus registry, the factory that library code records
/// through, and the registry rendered in the text exposition format 0.0.4 for `GET /metrics`.
///
/// Nothing here touches swift-metrics' process-wide `MetricsSystem`: the daemon makes one of
/// these and hands `factory` to what records, and each test makes its own.
package struct PrometheusMetrics: Sendable {
    /// The `Content-Type` of `exposition()`.
    package static let contentType = MetricSeries.contentType

    package let registry: PrometheusCollectorRegistry
    package let factory: any MetricsFactory

    package init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        self.factory = SeriesFactory(registry: registry)
    }

    /// Every series in the text exposition format 0.0.4.
    package func exposition() -> [UInt8] {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return buffer
    }
}
