import Foundation
import ScanBridgeCore
import ScanBridgeMetrics
import ScanBridgeModel
import ScanBridgeStore
import Testing

@Suite("Metrics of the store")
struct StoreMetricsTests {
    @Test("the journal's commits are timed and the write-ahead log's size is shown")
    func journal() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sb-metrics-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let metrics = PrometheusMetrics()
        let database = try StoreDatabase(path: folder.appendingPathComponent("store.db").path, metrics: metrics.factory)
        let journal = try SQLiteJournal(database: database, logger: Pipeline.quiet, onCommit: { _ in })
        let read = RawRead(device: "mock:till", driver: "mock", kind: .barcode, text: "5901234123457")
        for _ in 0..<3 {
            _ = try await journal.append(Normalizer().normalize(read))
        }
        _ = await journal.health()
        let exposition = try Exposition(metrics.exposition())
        #expect(exposition["scanbridge_journal_commit_seconds"]?.type == "histogram")
        #expect(exposition.value("scanbridge_journal_commit_seconds_count") == 3)
        #expect(exposition["scanbridge_journal_wal_bytes"]?.type == "gauge")
        #expect((exposition.value("scanbridge_journal_wal_bytes") ?? 0) > 0)
    }
}
