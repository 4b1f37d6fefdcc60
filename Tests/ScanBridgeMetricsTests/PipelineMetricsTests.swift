import MockDriver
import ScanBridgeCore
import ScanBridgeMetrics
import ScanBridgeModel
import ScanBridgeTesting
import Synchronization
import Testing

@Suite("Metrics of the scan pipeline")
struct PipelineMetricsTests {
    let barcode = ["kind": "barcode", "driver": "mock"]

    @Test("scans are counted by kind, driver and status, timed, and the journal's head shown")
    func scans() async throws {
        let pipeline = Pipeline()
        let driver = try Pipeline.till(scanning: ["5901234123457", "slow", "bad", "odd"])
        try await pipeline.running(driver) {
            try await waitUntil("four events journaled") { pipeline.journal.latestSeq == 4 }
            let metrics = try pipeline.exposition()
            for status in ["found", "timeout", "error", "other"] {
                #expect(metrics.value("scanbridge_scans_total", barcode.merging(["status": status]) { $1 }) == 1)
            }
            #expect(metrics["scanbridge_scans_total"]?.type == "counter")
            #expect(metrics["scanbridge_scan_duration_seconds"]?.type == "histogram")
            #expect(metrics.value("scanbridge_scan_duration_seconds_count") == 4)
            #expect(metrics.value("scanbridge_scan_duration_seconds_bucket", ["le": "+Inf"]) == 4)
            // Buckets resolve below a millisecond.
            #expect(metrics.value("scanbridge_scan_duration_seconds_bucket", ["le": "0.0001"]) != nil)
            #expect(metrics["scanbridge_journal_seq"]?.type == "gauge")
            #expect(metrics.value("scanbridge_journal_seq") == 4)
            #expect(metrics.value("scanbridge_handler_timeouts_total", ["handler": "verdict"]) == 1)
            #expect(metrics.value("scanbridge_handler_failures_total", ["handler": "verdict"]) == 1)
            #expect(metrics.value("scanbridge_devices", ["kind": "barcode", "state": "ready"]) == 1)
            #expect(metrics.value("scanbridge_devices", ["kind": "nfc", "state": "ready"]) == 0)
            #expect(metrics.value("scanbridge_read_spool_reads") == 0)
            #expect(metrics.value("scanbridge_read_spool_bytes") == 0)
        }
    }

    @Test("a device that was gone and comes back is counted as a reconnect")
    func reconnects() async throws {
        let pipeline = Pipeline()
        let driver = try Pipeline.till(scanning: [])
        try await pipeline.running(driver) {
            let till = try await waitFor("the till listed") { pipeline.bridge.registry.devices.first }
            try await driver.detach(id: till.id)
            var metrics = try pipeline.exposition()
            #expect(metrics.value("scanbridge_devices", ["kind": "barcode", "state": "gone"]) == 1)
            #expect(metrics.value("scanbridge_device_reconnects_total", barcode) == nil)
            _ = try await driver.attach(kind: .barcode, id: "till", name: nil)
            metrics = try pipeline.exposition()
            #expect(metrics.value("scanbridge_device_reconnects_total", barcode) == 1)
            #expect(metrics.value("scanbridge_devices", ["kind": "barcode", "state": "gone"]) == 0)
            #expect(metrics.value("scanbridge_devices", ["kind": "barcode", "state": "ready"]) == 1)
        }
    }

    @Test("reads dropped past the spool's bound are counted, and the device's error with them")
    func dropped() async throws {
        let pipeline = Pipeline(maxReads: 0)
        let driver = Impatient(mock: try Pipeline.till(scanning: ["1", "2"]))
        try await pipeline.running(driver) {
            try await waitUntil("two reads dropped") {
                try pipeline.exposition().value("scanbridge_reads_dropped_total", barcode) == 2
            }
            let metrics = try pipeline.exposition()
            #expect(metrics["scanbridge_reads_dropped_total"]?.type == "counter")
            #expect(metrics.value("scanbridge_device_errors_total", barcode) == 1)
            #expect(metrics.value("scanbridge_devices", ["kind": "barcode", "state": "error"]) == 1)
            #expect(metrics.value("scanbridge_scans_total", barcode.merging(["status": "found"]) { $1 }) == nil)
        }
    }

    @Test("reads waiting for a journal that cannot be written show in the spool's gauges, and their device's error")
    func spooled() async throws {
        let pipeline = Pipeline(failing: true)
        let driver = try Pipeline.till(scanning: ["1", "2"])
        try await pipeline.running(driver) {
            // The lane holds one read while it retries, the other waits behind it: both are spooled.
            try await waitUntil("two reads spooled") {
                try pipeline.exposition().value("scanbridge_read_spool_reads") == 2
            }
            let metrics = try pipeline.exposition()
            #expect((metrics.value("scanbridge_read_spool_bytes") ?? 0) > 0)
            #expect(metrics.value("scanbridge_device_errors_total", barcode) == 1)
            #expect(metrics.value("scanbridge_scans_total", barcode.merging(["status": "found"]) { $1 }) == nil)
            #expect(metrics.value("scanbridge_journal_seq") == 0)
        }
    }

    @Test("a subscription that overflows is counted; a driver the daemon does not run is labelled other")
    func overflowAndUnknownDriver() async throws {
        let pipeline = Pipeline()
        #expect(try pipeline.exposition().value("scanbridge_subscription_overflows_total") == 0)
        _ = pipeline.publisher.subscribe(id: "s1", filter: .all, sink: FullSink(), replaying: false)
        _ = try await pipeline.bridge.ingest(RawRead(device: "rogue:1", driver: "rogue", kind: .qr, text: "x"))
        let metrics = try pipeline.exposition()
        #expect(metrics.value("scanbridge_subscription_overflows_total") == 1)
        #expect(metrics.value("scanbridge_scans_total", ["kind": "qr", "driver": "other", "status": "found"]) == 1)
        #expect(metrics.value("scanbridge_journal_seq") == 1)
        #expect(metrics.value("scanbridge_scan_duration_seconds_count") == 1)
    }

    @Test("handler names past the bound share the label other")
    func boundedHandlers() throws {
        let metrics = PrometheusMetrics()
        let scanMetrics = ScanMetrics(factory: metrics.factory, drivers: [])
        for number in 0..<(ScanMetrics.maxHandlers + 10) { scanMetrics.handlerFailed("h\(number)") }
        let exposition = try Exposition(metrics.exposition())
        let samples = exposition["scanbridge_handler_failures_total"]?.samples ?? []
        #expect(samples.count == ScanMetrics.maxHandlers + 1)
        #expect(exposition.value("scanbridge_handler_failures_total", ["handler": "other"]) == 10)
    }
}

/// A client that never has room: its subscription overflows at the first event.
final class FullSink: SubscriptionSink {
    func offer(_ event: JournaledEvent, for subscription: Subscription) -> Bool { false }
    func waitForRoom(for subscription: Subscription) async throws {}
    func notify(_ notice: SubscriptionNotice, for subscription: Subscription) -> Bool { false }
    func overflowed(_ subscription: Subscription, dropped: Int) {}
}
