import Foundation
import GRDB
package import ScanBridgeCore
package import ScanBridgeModel

/// Reads of the journal, on GRDB's reader connections (WAL: they never wait for the writer).
extension SQLiteJournal {
    package func events(after: UInt64, through: UInt64, filter: SubscriptionFilter, limit: Int, maxBytes: Int)
        async throws -> [JournaledEvent]
    {
        try await database.pool.read { db in
            var sql = "SELECT seq, kind, device, json FROM event WHERE seq > ? AND seq <= ?"
            var arguments: StatementArguments = [Int64(after), Int64(through)]
            if let kinds = filter.kinds {
                sql += " AND kind IN (\(databaseQuestionMarks(count: kinds.count)))"
                arguments += StatementArguments(kinds.map(\.rawValue))
            }
            if let devices = filter.devices {
                sql += " AND device IN (\(databaseQuestionMarks(count: devices.count)))"
                arguments += StatementArguments(Array(devices))
            }
            sql += " ORDER BY seq LIMIT ?"
            arguments += [limit]
            return try Self.fetch(db, sql: sql, arguments: arguments, maxBytes: maxBytes)
        }
    }

    package func recent(limit: Int, kinds: Set<DeviceKind>?, maxBytes: Int) async throws -> [JournaledEvent] {
        try await database.pool.read { db in
            var sql = "SELECT seq, kind, device, json FROM event"
            var arguments = StatementArguments()
            if let kinds {
                sql += " WHERE kind IN (\(databaseQuestionMarks(count: kinds.count)))"
                arguments += StatementArguments(kinds.map(\.rawValue))
            }
            sql += " ORDER BY seq DESC LIMIT ?"
            arguments += [limit]
            return try Self.fetch(db, sql: sql, arguments: arguments, maxBytes: maxBytes).reversed()
        }
    }

    package func oldestRetainedSeq() async throws -> UInt64? {
        try await database.pool.read { db in
            try UInt64.fetchOne(db, sql: "SELECT MIN(seq) FROM event")
        }
    }

    /// The rows' events, in the query's order, until the next would pass `maxBytes` of JSON
    /// (the first always comes): rows are read one at a time, so a budget met early leaves
    /// the rest unread.
    static func fetch(_ db: Database, sql: String, arguments: StatementArguments, maxBytes: Int = .max) throws
        -> [JournaledEvent]
    {
        var events: [JournaledEvent] = []
        var budget = ByteBudget(maxBytes)
        let rows = try Row.fetchCursor(db, sql: sql, arguments: arguments)
        while let row = try rows.next() {
            let json: Data = row["json"]
            guard budget.admits(json.count) else { break }
            events.append(
                JournaledEvent(
                    seq: row["seq"], kind: DeviceKind(rawValue: row["kind"]) ?? .barcode, device: row["device"],
                    json: Array(json)))
        }
        return events
    }
}
