import CoreMetrics
import Foundation
import ScanBridgeCore
import ScanBridgeMetrics
import ScanBridgeModel
import ScanBridgeServer
import ScanBridgeStore
import Testing

@Suite("The metrics exposition")
struct ExpositionTests {
    /// Every series of the catalogue, each made at least once.
    func everySeries() -> PrometheusMetrics {
        let metrics = PrometheusMetrics()
        let scan = ScanMetrics(factory: metrics.factory, drivers: ["mock"])
        scan.scanCommitted(kind: .nfc, driver: "pcsc", status: "identified")
        scan.scanDuration.record(.microseconds(300))
        scan.readDropped(kind: .barcode, driver: "mock")
        scan.deviceFailed(kind: .barcode, driver: "mock")
        scan.deviceReconnected(kind: .barcode, driver: "mock")
        scan.deviceReset(driver: "usb", outcome: "reset")
        scan.handlerTimedOut("product-lookup")
        scan.handlerFailed("product-lookup")
        scan.journalSeq.set(7)
        scan.subscriptionOverflows.increment()
        scan.readSpoolReads.set(0)
        scan.readSpoolBytes.set(0)
        scan.devicesListed([])
        _ = ServerMetrics(factory: metrics.factory)
        StoreGauges(factory: metrics.factory).record(StoreStatus(kind: .postgresql, state: .offline, copyLag: 3))
        _ = try? StoreDatabase(
            path: FileManager.default.temporaryDirectory.appendingPathComponent("sb-metrics-\(UUID().uuidString)/s.db").path,
            metrics: metrics.factory)
        return metrics
    }

    @Test("the text is valid 0.0.4: a HELP and a TYPE line per family, then its samples, each line ending in a newline")
    func valid() throws {
        let bytes = everySeries().exposition()
        let exposition = try Exposition(bytes)
        for family in exposition.families.values {
            #expect(family.help?.isEmpty == false)
            #expect(family.type != nil)
            #expect(!family.samples.isEmpty)
        }
        #expect(bytes.last == UInt8(ascii: "\n"))
        #expect(PrometheusMetrics.contentType.hasPrefix("text/plain; version=0.0.4"))
    }

    @Test("the store's gauges say whether the shared store answers and how many events wait for it")
    func storeGauges() throws {
        let metrics = PrometheusMetrics()
        let gauges = StoreGauges(factory: metrics.factory)
        gauges.record(StoreStatus(kind: .postgresql, state: .offline, copyLag: 12, refusedRows: 2))
        var exposition = try Exposition(metrics.exposition())
        #expect(exposition[MetricSeries.storeUp.name]?.samples.first?.value == 0)
        #expect(exposition[MetricSeries.storeCopyLag.name]?.samples.first?.value == 12)
        #expect(exposition[MetricSeries.storeRowsRefused.name]?.samples.first?.value == 2)
        gauges.record(.local)
        exposition = try Exposition(metrics.exposition())
        #expect(exposition[MetricSeries.storeUp.name]?.samples.first?.value == 1)
        #expect(exposition[MetricSeries.storeCopyLag.name]?.samples.first?.value == 0)
    }

    @Test("every series has the name, type and label names of the catalogue (docs/protocol.md, Metrics)")
    func catalogue() throws {
        let exposition = try Exposition(everySeries().exposition())
        for series in MetricSeries.all {
            let family = try #require(exposition[series.name], "\(series.name) is not exported")
            #expect(family.type == series.kind.rawValue, "\(series.name)")
            for sample in family.samples {
                let labels = Set(sample.labels.keys).subtracting(sample.name.hasSuffix("_bucket") ? ["le"] : [])
                #expect(labels == Set(series.labels), "\(sample.name)")
            }
        }
        #expect(Set(exposition.families.keys) == Set(MetricSeries.all.map(\.name)))
    }

    @Test("label values are escaped: a client's handler name cannot break a line")
    func escaping() throws {
        let metrics = PrometheusMetrics()
        let name = "we\"ird\\handler\nname"
        ScanMetrics(factory: metrics.factory, drivers: []).handlerFailed(name)
        let bytes = metrics.exposition()
        #expect(String(decoding: bytes, as: UTF8.self).contains(#"handler="we\"ird\\handler\nname""#))
        #expect(try Exposition(bytes).value("scanbridge_handler_failures_total", ["handler": name]) == 1)
    }

    @Test("the protocol's series are listed in docs/protocol.md with their type and labels, and the others too")
    func documented() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let protocolText = try String(contentsOf: root.appendingPathComponent("docs/protocol.md"), encoding: .utf8)
        let operations = try String(contentsOf: root.appendingPathComponent("docs/troubleshooting.md"), encoding: .utf8)
        for series in MetricSeries.all {
            let row = protocolText.split(separator: "\n").first { $0.hasPrefix("| `\(series.name)` |") }
            let cells = row?.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) } ?? []
            #expect(cells.count >= 3 && cells[1] == series.kind.rawValue, "\(series.name) in docs/protocol.md")
            for label in series.labels {
                #expect(cells.count >= 3 && cells[2].contains("`\(label)`"), "\(series.name)'s \(label)")
            }
            #expect(operations.contains("`\(series.name)`"), "\(series.name) in docs/troubleshooting.md")
        }
    }
}
