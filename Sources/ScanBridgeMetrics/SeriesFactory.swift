import CoreMetrics
import Prometheus
import ScanBridgeCore

/// Makes swift-metrics' handles in a Prometheus registry, giving each of the daemon's series
/// (`MetricSeries`) its help text and, for a histogram, its buckets. Any other name goes to
/// swift-prometheus's own factory, without help text.
///
/// swift-prometheus stops the process when one name is made with two help texts, two types
/// or two sets of label names: every handle of a series is made here, from one definition.
struct SeriesFactory: MetricsFactory {
    let registry: PrometheusCollectorRegistry
    private let plain: PrometheusMetricsFactory

    init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
        self.plain = PrometheusMetricsFactory(registry: registry)
    }

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        guard let series = MetricSeries.byName[label] else { return plain.makeCounter(label: label, dimensions: dimensions) }
        return registry.makeCounter(descriptor: series.descriptor, labels: dimensions)
    }

    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        guard let series = MetricSeries.byName[label] else {
            return plain.makeFloatingPointCounter(label: label, dimensions: dimensions)
        }
        return registry.makeCounter(descriptor: series.descriptor, labels: dimensions)
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        guard let series = MetricSeries.byName[label], !aggregate else {
            return plain.makeRecorder(label: label, dimensions: dimensions, aggregate: aggregate)
        }
        return registry.makeGauge(descriptor: series.descriptor, labels: dimensions)
    }

    func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        guard let series = MetricSeries.byName[label] else { return plain.makeMeter(label: label, dimensions: dimensions) }
        return registry.makeGauge(descriptor: series.descriptor, labels: dimensions)
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        guard let series = MetricSeries.byName[label] else { return plain.makeTimer(label: label, dimensions: dimensions) }
        return registry.makeDurationHistogram(descriptor: series.descriptor, labels: dimensions, buckets: series.buckets)
    }

    func destroyCounter(_ handler: any CounterHandler) { plain.destroyCounter(handler) }
    func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {
        plain.destroyFloatingPointCounter(handler)
    }
    func destroyRecorder(_ handler: any RecorderHandler) { plain.destroyRecorder(handler) }
    func destroyMeter(_ handler: any MeterHandler) { plain.destroyMeter(handler) }
    func destroyTimer(_ handler: any TimerHandler) { plain.destroyTimer(handler) }
}

extension MetricSeries {
    /// The whole name as the metric's name: the unit is already in it.
    fileprivate var descriptor: MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
    }
}
