import Foundation
import GRDB
import ScanBridgeCore
import ScanBridgeModel

/// Reads of the journal, on GRDB's reader connections (WAL: they never wait for the writer).
extension SQLiteJournal {
    package func events(after: UInt64, through: UInt64, filter: SubscriptionFilter, limit: Int) async throws
        -> [JournaledEvent]
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
            return try Self.fetch(db, sql: sql, arguments: arguments)
        }
    }

    package func recent(limit: Int, kinds: Set<DeviceKind>?) async throws -> [JournaledEvent] {
        try await database.pool.read { db in
            var sql = "SELECT seq, kind, device, json FROM event"
            var arguments = StatementArguments()
            if let kinds {
                sql += " WHERE kind IN (\(databaseQuestionMarks(count: kinds.count)))"
                arguments += StatementArguments(kinds.map(\.rawValue))
            }
            sql += " ORDER BY seq DESC LIMIT ?"
            arguments += [limit]
            return try Self.fetch(db, sql: sql, arguments: arguments).reversed()
        }
    }

    package func oldestRetainedSeq() async throws -> UInt64? {
        try await database.pool.read { db in
            try UInt64.fetchOne(db, sql: "SELECT MIN(seq) FROM event")
        }
    }

    static func fetch(_ db: Database, sql: String, arguments: StatementArguments) throws -> [JournaledEvent] {
        try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
            let json: Data = row["json"]
            return JournaledEvent(
                seq: row["seq"], kind: DeviceKind(rawValue: row["kind"]) ?? .barcode, device: row["device"],
                json: Array(json))
        }
    }
}
