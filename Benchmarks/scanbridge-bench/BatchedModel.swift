import Foundation
import GRDB
import Logging
import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeStore
import Synchronization

/// The batched throughput's baseline: the daemon's own journal, in this process, appending the
/// very events a daemon run just journaled (read back from its store, so every event is as
/// large as the daemon's), in batches of 64 with 16 in flight as the injector sends them, at
/// the same durability, and each committed event made into one subscriber's `scan` line. What
/// the daemon needs beyond this (the socket, the normalizer, the handlers, eight subscribers)
/// is its own cost, so a target on the ratio holds on any machine.
enum BatchedModel {
    /// Events a second through the model, for the events journaled in the store at
    /// `databasePath` (a daemon's, stopped), at `durability`.
    static func eventsPerSecond(replaying databasePath: String, durability: StoreDatabase.Durability, directory: URL)
        async throws -> Double
    {
        let events = try await onAThread("model-events") {
            let store = try DatabaseQueue(path: databasePath)
            defer { try? store.close() }
            return try store.read { db in
                try Data.fetchAll(db, sql: "SELECT json FROM event ORDER BY seq").map {
                    try ScanEvent(wire: JSONValue(parsing: Array($0)))
                }
            }
        }
        guard !events.isEmpty else { throw BenchmarkFailure(description: "the batched model found no events to replay") }
        let path = directory.appendingPathComponent("model-\(UUID().uuidString.prefix(8)).sqlite").path
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        let database = try StoreDatabase(path: path, durability: durability)
        let lines = LineTotal()
        let prefix = Array(#"{"jsonrpc":"2.0","method":"scan","params":{"subscription":"s1","event":"#.utf8)
        let journal = try SQLiteJournal(database: database, logger: Logger(label: "scanbridge.bench.model")) { committed in
            for event in committed {
                var line = prefix
                line += event.json
                line += Array("}}\n".utf8)
                lines.add(line.count)
            }
        }
        let batches = stride(from: 0, to: events.count, by: 64).map { Array(events[$0..<min(events.count, $0 + 64)]) }
        let started = Nanos.now()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for (index, batch) in batches.enumerated() {
                if index >= 16 { try await group.next() }
                group.addTask { _ = try await journal.append(contentsOf: batch) }
            }
            try await group.waitForAll()
        }
        let seconds = Double(Nanos.now() - started) / 1e9
        guard lines.count == events.count else {
            throw BenchmarkFailure(description: "the batched model committed \(lines.count) of \(events.count) events")
        }
        return Double(events.count) / seconds
    }
}

/// The subscriber lines the model made: a count and their bytes, so that making them is not
/// optimised away.
final class LineTotal: Sendable {
    private let totals = Mutex((count: 0, bytes: 0))
    var count: Int { totals.withLock { $0.count } }
    func add(_ bytes: Int) {
        totals.withLock {
            $0.count += 1
            $0.bytes += bytes
        }
    }
}
