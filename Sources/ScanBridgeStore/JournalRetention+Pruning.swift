import Foundation
import GRDB

extension JournalRetention {
    /// The last seq ever assigned: the newest row, or the floor a prune left when it emptied the table.
    static func lastSeq(_ db: Database) throws -> UInt64 {
        let newest = try UInt64.fetchOne(db, sql: "SELECT MAX(seq) FROM event") ?? 0
        let floor = try UInt64.fetchOne(db, sql: "SELECT seq FROM journal_floor WHERE id = 1") ?? 0
        return max(newest, floor)
    }

    /// Deletes the events this retention no longer keeps, but those after `held`, and records
    /// `lastSeq` as the floor so the sequence continues even when nothing is left. Call inside
    /// a write transaction.
    func prune(_ db: Database, lastSeq: UInt64, now: Date, keepingAfter held: UInt64? = nil) throws {
        guard let oldest = try UInt64.fetchOne(db, sql: "SELECT MIN(seq) FROM event") else { return }
        let keepByCount = lastSeq >= UInt64(maxEvents) ? lastSeq - UInt64(maxEvents) + 1 : 0
        // Age counts back from the newest event when the clock is past it: a clock stepped
        // forward (or a daemon off for a month) then drops no more than retention says.
        let newestMs = try Int64.fetchOne(db, sql: "SELECT timeMs FROM event ORDER BY seq DESC LIMIT 1")
        let nowMs = Int64((now.timeIntervalSince1970 * 1000).rounded(.down))
        // An age too long to count in milliseconds keeps everything, instead of trapping.
        let ageMs = maxAge.components.seconds.multipliedReportingOverflow(by: 1000)
        let cutoff = min(nowMs, newestMs ?? nowMs).subtractingReportingOverflow(ageMs.partialValue)
        let cutoffMs = ageMs.overflow || cutoff.overflow ? Int64.min : cutoff.partialValue
        let keepByAge = try firstSeq(atOrAfter: cutoffMs, from: oldest, through: lastSeq, db: db)
        let keepFrom = min(max(keepByCount, keepByAge), held.map { $0 + 1 } ?? .max)
        guard keepFrom > oldest else { return }
        try db.execute(sql: "DELETE FROM event WHERE seq < ?", arguments: [Int64(keepFrom)])
        try db.execute(
            sql: "INSERT INTO journal_floor (id, seq) VALUES (1, ?) ON CONFLICT(id) DO UPDATE SET seq = excluded.seq",
            arguments: [Int64(lastSeq)])
    }

    /// The first seq whose time is at or after `timeMs` (lastSeq + 1 when none is): a binary
    /// search over seq, whose times rise with it, so no index on time is kept up on every insert.
    /// A wall clock stepped back breaks that rise, and the search could land past an event at
    /// or after `timeMs`; so the rows it would drop are read once more (the rowid range the
    /// delete reads anyway) and the first such event, if any, is where keeping starts.
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
        guard low > oldest else { return low }
        let younger = try Int64.fetchOne(
            db, sql: "SELECT MIN(seq) FROM event WHERE seq >= ? AND seq < ? AND timeMs >= ?",
            arguments: [Int64(oldest), Int64(low), timeMs])
        return younger.map(UInt64.init) ?? low
    }
}
