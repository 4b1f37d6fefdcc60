import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeTesting
import Testing

/// What the shared-store suites check in `scan_events`.
extension TestPostgres {
    func waitForCopies(_ count: Int, of counter: String, _ database: String) async throws {
        try await waitFor("\(count) events of \(counter) in scan_events", timeout: .seconds(60)) {
            // The table is there once a daemon has migrated the database.
            let copied = try? await psql("SELECT count(*) FROM scan_events WHERE counter_id = '\(counter)'", database: database)
            return copied.flatMap { Int($0) } == count ? () : nil
        }
    }

    /// The table holds exactly the journal's events, each under its own seq.
    func expectTheJournal(of client: ScanBridgeClient, _ database: String, counter: String) async throws {
        let journal = try #require(try await client.call("events.recent", ["limit": 1000])["events"]?.arrayValue)
        let local = journal.map { "\($0["seq"]?.intValue ?? -1)|\($0["id"]?.stringValue ?? "")" }
        let copied = try await psql(
            "SELECT seq, event->>'id' FROM scan_events WHERE counter_id = '\(counter)' ORDER BY seq", database: database)
        #expect(copied.split(separator: "\n").map(String.init) == local)
    }
}
