/// One series the daemon exports: its name, type, labels and help text. The names, types and
/// labels of the protocol's series are a contract dashboards are tested against
/// (docs/protocol.md, Metrics); the others follow Prometheus's naming (base units in the
/// name, `_total` on counters).
package struct MetricSeries: Sendable, Hashable {
    package enum Kind: String, Sendable {
        case counter, gauge, histogram
    }

    package let name: String
    package let kind: Kind
    /// Label names, in the order every handle of the series gives them.
    package let labels: [String]
    package let help: String
    /// A histogram's bucket bounds; empty for the other kinds.
    package let buckets: [Duration]

    init(_ name: String, _ kind: Kind, labels: [String] = [], buckets: [Duration] = [], help: String) {
        self.name = name
        self.kind = kind
        self.labels = labels
        self.help = help
        self.buckets = buckets
    }
}

extension MetricSeries {
    /// The `Content-Type` of the exposition (`ServerServices.metrics`): Prometheus's text format 0.0.4.
    package static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// From a tenth of a millisecond, where a scan's end-to-end time lies, to seconds, where a
    /// handler timing out or a journal that cannot be written puts it.
    package static let latencyBuckets: [Duration] = [
        .microseconds(50), .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1),
        .microseconds(2500), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
        .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5),
        .seconds(10),
    ]

    // The protocol's series (docs/protocol.md, Metrics).
    package static let scans = MetricSeries(
        "scanbridge_scans_total", .counter, labels: ["kind", "driver", "status"],
        help: "Scan events committed to the journal, by device kind, driver and resolution status.")
    package static let scanDuration = MetricSeries(
        "scanbridge_scan_duration_seconds", .histogram, buckets: latencyBuckets,
        help: "Time from a device read to its event's commit to the journal.")
    package static let journalSeq = MetricSeries(
        "scanbridge_journal_seq", .gauge, help: "The seq of the latest event committed to the journal.")
    package static let devices = MetricSeries(
        "scanbridge_devices", .gauge, labels: ["kind", "state"], help: "Devices listed, by kind and state.")
    package static let connections = MetricSeries(
        "scanbridge_connections", .gauge, labels: ["transport"], help: "Client connections open, by transport.")
    package static let subscriptionOverflows = MetricSeries(
        "scanbridge_subscription_overflows_total", .counter,
        help: "Subscriptions ended because their client did not read events as fast as they came.")
    package static let requestsRefused = MetricSeries(
        "scanbridge_requests_refused_total", .counter, labels: ["reason"],
        help: "Connections and requests refused, by reason.")
    package static let cardUnverified = MetricSeries(
        "scanbridge_card_unverified_total", .counter, labels: ["reason"],
        help: "Taps of secure cards refused as unverified, by reason; a no-message tap may be a clone of the UID.")

    // What an operator needs besides, to see what is sick.
    package static let deviceErrors = MetricSeries(
        "scanbridge_device_errors_total", .counter, labels: ["kind", "driver"],
        help: "Times a device went into the error state, by kind and driver.")
    package static let deviceReconnects = MetricSeries(
        "scanbridge_device_reconnects_total", .counter, labels: ["kind", "driver"],
        help: "Times a device that was gone came back, by kind and driver.")
    package static let deviceResets = MetricSeries(
        "scanbridge_device_resets_total", .counter, labels: ["driver", "outcome"],
        help: "USB port resets of devices, by driver and outcome (reset, reenumerated, failed).")
    package static let handlerTimeouts = MetricSeries(
        "scanbridge_handler_timeouts_total", .counter, labels: ["handler"],
        help: "Events a handler did not resolve in time, by handler.")
    package static let handlerFailures = MetricSeries(
        "scanbridge_handler_failures_total", .counter, labels: ["handler"],
        help: "Events a handler failed to resolve (it threw or answered garbage), by handler.")
    package static let journalCommit = MetricSeries(
        "scanbridge_journal_commit_seconds", .histogram, buckets: latencyBuckets,
        help: "Time the journal took to write and commit one batch of events.")
    package static let readSpoolReads = MetricSeries(
        "scanbridge_read_spool_reads", .gauge, help: "Device reads taken from devices and waiting to be journaled.")
    package static let readSpoolBytes = MetricSeries(
        "scanbridge_read_spool_bytes", .gauge, help: "Bytes of the device reads waiting to be journaled.")
    package static let readsDropped = MetricSeries(
        "scanbridge_reads_dropped_total", .counter, labels: ["kind", "driver"],
        help: "Device reads dropped past the per-device or daemon-wide bounds, by kind and driver.")
    package static let walBytes = MetricSeries(
        "scanbridge_journal_wal_bytes", .gauge,
        help: "Bytes of the database's write-ahead log file, as the store's upkeep last saw it.")

    package static let storeUp = MetricSeries(
        "scanbridge_store_up", .gauge,
        help: "1 while the shop's shared store answers, 0 while it cannot be reached; 1 for a local database.")
    package static let storeCopyLag = MetricSeries(
        "scanbridge_store_copy_lag_events", .gauge,
        help: "Events journaled here and not yet copied to the shop's shared store.")
    package static let storeRowsRefused = MetricSeries(
        "scanbridge_store_rows_refused", .gauge,
        help: "Rows of the shop's shared store left out of this counter's copy, as no client could have given them.")

    /// Every series, the protocol's first.
    package static let all: [MetricSeries] = [
        scans, scanDuration, journalSeq, devices, connections, subscriptionOverflows, requestsRefused, cardUnverified,
        deviceErrors, deviceReconnects, deviceResets, handlerTimeouts, handlerFailures, journalCommit, readSpoolReads,
        readSpoolBytes, readsDropped, walBytes, storeUp, storeCopyLag, storeRowsRefused,
    ]

    package static let byName: [String: MetricSeries] = Dictionary(uniqueKeysWithValues: all.map { ($0.name, $0) })
}
