package import CoreMetrics
package import ScanBridgeModel
import Synchronization

/// What the scan pipeline records: scans, their latency, the journal's head, devices, the
/// read spool, handlers that fail. Every handle is made through the factory it is given (never
/// the process-wide `MetricsSystem`), once per label set, so a test can make its own.
///
/// Labels take only bounded values: a driver the daemon was not started with, a resolution
/// status no built-in handler gives, or a handler past the first `maxHandlers` are labelled
/// `other`, so a client cannot grow the series without bound.
package final class ScanMetrics: Sendable {
    /// Records nothing: for pipelines whose metrics no one reads.
    package static let none = ScanMetrics(factory: NOOPMetricsHandler.instance, drivers: [])

    /// The statuses of the built-in handlers and of the daemon itself (docs/protocol.md, Resolutions).
    package static let statuses = [
        "found", "not_found", "invalid", "identified", "unknown", "blocked", "inactive", "linked", "conflict",
        "unverified", "unhandled", "error", "timeout",
    ]
    package static let other = "other"
    /// Distinct handler names counted apart; the later ones are counted as `other`.
    package static let maxHandlers = 64

    let factory: any MetricsFactory
    package let scanDuration: Timer
    package let journalSeq: Meter
    package let subscriptionOverflows: Counter
    package let readSpoolReads: Meter
    package let readSpoolBytes: Meter

    /// The drivers the daemon runs, each a column of the tables below, then `other`.
    private let driverColumns: [String: Int]
    private let driverCount: Int
    private let scans: CounterTable
    private let readsDropped: CounterTable
    private let deviceErrors: CounterTable
    private let deviceReconnects: CounterTable
    /// By kind, then state.
    private let devices: [Meter]
    private let handlers = Mutex<[String: (timeouts: Counter, failures: Counter)]>([:])
    /// By reason, in the order of `cardUnverifiedReasons`.
    private let cardsUnverified: [Counter]

    /// Why a secure card's tap was refused (docs/protocol.md, Secure cards).
    package static let cardUnverifiedReasons = ["bad-cmac", "replayed", "unknown-key", "no-message"]
    private static let statusColumns = Dictionary(uniqueKeysWithValues: statuses.enumerated().map { ($1, $0) })
    private static let kinds = DeviceKind.allCases
    private static let states: [Device.State] = [.ready, .busy, .error, .gone]

    /// - Parameter drivers: the names of the drivers that run (reads of any other are labelled `other`).
    package init(factory: any MetricsFactory, drivers: [String]) {
        self.factory = factory
        let driverNames = Array(Set(drivers)).sorted() + [Self.other]
        let driverCount = driverNames.count
        self.driverCount = driverCount
        self.driverColumns = Dictionary(uniqueKeysWithValues: driverNames.dropLast().enumerated().map { ($1, $0) })
        let statusNames = Self.statuses + [Self.other]
        let kinds = Self.kinds
        scans = CounterTable(.scans, factory: factory, count: kinds.count * driverCount * statusNames.count) { slot in
            let status = slot % statusNames.count
            let rest = slot / statusNames.count
            return [kinds[rest / driverCount].rawValue, driverNames[rest % driverCount], statusNames[status]]
        }
        let kindAndDriver: @Sendable (Int) -> [String] = { slot in
            [kinds[slot / driverCount].rawValue, driverNames[slot % driverCount]]
        }
        readsDropped = CounterTable(.readsDropped, factory: factory, count: kinds.count * driverCount, labelValues: kindAndDriver)
        deviceErrors = CounterTable(.deviceErrors, factory: factory, count: kinds.count * driverCount, labelValues: kindAndDriver)
        deviceReconnects = CounterTable(
            .deviceReconnects, factory: factory, count: kinds.count * driverCount, labelValues: kindAndDriver)
        devices = kinds.flatMap { kind in
            Self.states.map { state in
                Meter(
                    label: MetricSeries.devices.name, dimensions: [("kind", kind.rawValue), ("state", state.rawValue)],
                    factory: factory)
            }
        }
        scanDuration = Timer(label: MetricSeries.scanDuration.name, factory: factory)
        journalSeq = Meter(label: MetricSeries.journalSeq.name, factory: factory)
        subscriptionOverflows = Counter(label: MetricSeries.subscriptionOverflows.name, factory: factory)
        readSpoolReads = Meter(label: MetricSeries.readSpoolReads.name, factory: factory)
        readSpoolBytes = Meter(label: MetricSeries.readSpoolBytes.name, factory: factory)
        cardsUnverified = Self.cardUnverifiedReasons.map {
            Counter(label: MetricSeries.cardUnverified.name, dimensions: [("reason", $0)], factory: factory)
        }
    }

    /// A secure card's tap was refused as unverified; `reason` is one of `cardUnverifiedReasons`.
    package func cardUnverified(reason: String) {
        guard let index = Self.cardUnverifiedReasons.firstIndex(of: reason) else { return }
        cardsUnverified[index].increment()
    }

    /// An event was committed to the journal.
    package func scanCommitted(kind: DeviceKind, driver: String, status: String) {
        let status = Self.statusColumns[status] ?? Self.statuses.count
        scans.counter(at: (column(kind: kind, driver: driver)) * (Self.statuses.count + 1) + status).increment()
    }

    /// A read was dropped past a bound.
    package func readDropped(kind: DeviceKind, driver: String) {
        readsDropped.counter(at: column(kind: kind, driver: driver)).increment()
    }

    /// A device went into the error state.
    package func deviceFailed(kind: DeviceKind, driver: String) {
        deviceErrors.counter(at: column(kind: kind, driver: driver)).increment()
    }

    /// A device that was gone came back.
    package func deviceReconnected(kind: DeviceKind, driver: String) {
        deviceReconnects.counter(at: column(kind: kind, driver: driver)).increment()
    }

    /// A device's USB port was reset: `outcome` is `reset`, `reenumerated` or `failed`.
    package func deviceReset(driver: String, outcome: String) {
        let driver = driverColumns[driver] == nil ? Self.other : driver
        Counter(
            label: MetricSeries.deviceResets.name, dimensions: [("driver", driver), ("outcome", outcome)], factory: factory
        ).increment()
    }

    /// The devices listed now, counted by kind and state.
    package func devicesListed(_ listed: some Sequence<Device>) {
        withUnsafeTemporaryAllocation(of: Int.self, capacity: devices.count) { counts in
            counts.initialize(repeating: 0)
            for device in listed {
                counts[Self.kindIndex(device.kind) * Self.states.count + Self.stateIndex(device.state)] += 1
            }
            for (meter, count) in zip(devices, counts) { meter.set(count) }
        }
    }

    /// A handler let an event time out.
    package func handlerTimedOut(_ handler: String) {
        handlerCounters(handler).timeouts.increment()
    }

    /// A handler failed to resolve an event.
    package func handlerFailed(_ handler: String) {
        handlerCounters(handler).failures.increment()
    }

    private func handlerCounters(_ handler: String) -> (timeouts: Counter, failures: Counter) {
        handlers.withLock { handlers in
            if let counters = handlers[handler] { return counters }
            let label = handlers.count < Self.maxHandlers ? handler : Self.other
            if let counters = handlers[label] { return counters }
            let counters = (
                timeouts: Counter(
                    label: MetricSeries.handlerTimeouts.name, dimensions: [("handler", label)], factory: factory),
                failures: Counter(
                    label: MetricSeries.handlerFailures.name, dimensions: [("handler", label)], factory: factory)
            )
            handlers[label] = counters
            return counters
        }
    }

    private func column(kind: DeviceKind, driver: String) -> Int {
        Self.kindIndex(kind) * driverCount + (driverColumns[driver] ?? driverCount - 1)
    }

    // Switches rather than `allCases.firstIndex`: `allCases` builds an array on every call.
    private static func kindIndex(_ kind: DeviceKind) -> Int {
        switch kind {
        case .nfc: 0
        case .barcode: 1
        case .qr: 2
        }
    }

    private static func stateIndex(_ state: Device.State) -> Int {
        switch state {
        case .ready: 0
        case .busy: 1
        case .error: 2
        case .gone: 3
        }
    }
}
