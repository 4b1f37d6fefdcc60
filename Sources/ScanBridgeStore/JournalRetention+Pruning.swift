import Foundation
import GRDB

extension JournalRetention {
    /// The last seq ever assigned: the newest row, or the floor a prune left when it emptied the table.
    static func lastSeq(_ db: Database) throws -> UInt64 {
        let newest = try UInt64.fetchOne(db, sql: "SELECT MAX(seq) FROM event") ?? 0
        let floor = try UInt64.fetchOne(db, sql: "SELECT seq FROM journal_floor WHERE id = 1") ?? 0
        return max(newest, floor)
    }

    /// Deletes the events this retention no longer keeps, and records `lastSeq` as the floor so
    /// the sequence continues even when nothing is left. Call inside a write transaction.
    func prune(_ db: Database, lastSeq: UInt64, now: Date) throws {
        guard let oldest = try UInt64.fetchOne(db, sql: "SELECT MIN(seq) FROM event") else { return }
        let keepByCount = lastSeq >= UInt64(maxEvents) ? lastSeq - UInt64(maxEvents) + 1 : 0
        let cutoffMs = Int64((now.timeIntervalSince1970 - Double(maxAge.components.seconds)) * 1000)
        let keepByAge = try firstSeq(atOrAfter: cutoffMs, from: oldest, through: lastSeq, db: db)
        let keepFrom = max(keepByCount, keepByAge)
        guard keepFrom > oldest else { return }
        try db.execute(sql: "DELETE FROM event WHERE seq < ?", arguments: [Int64(keepFrom)])
        try db.execute(
            sql: "INSERT INTO journal_floor (id, seq) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET seq = excluded.seq",
            arguments: [Int64(lastSeq)])
    }

    /// The first seq whose time is at or after `timeMs` (lastSeq + 1 when none is): a binary
    /// search over seq, whose times rise with it, so no index on time is kept up on every insert.
    private func firstSeq(atOrAfter timeMs: Int64, from oldest: UInt64, through last: UInt64, db: Database) throws
        -> UInt64
    {
        let timeOf = try db.cachedStatement(sql: "SELECT timeMs FROM event WHERE seq >= ? ORDER BY seq LIMIT 1")
        var low = oldest
        var high = last + 1
        while low < high {
            let middle = low + (high - low) / 2
            let time = try Int64.fetchOne(timeOf, arguments: [Int64(middle)]) ?? .max
            if time >= timeMs { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
