import Foundation
import GRDB
import ScanBridgeCore
package import ScanBridgeModel

extension SQLiteJournal {
    /// The candidates are found on a reader connection, so the writer (and every scan waiting
    /// for its commit) is held only for the updates, in one transaction. An event appended
    /// meanwhile is not looked at: the caller changes its data first (`customers.erase`
    /// erases the store before the journal), so a later event no longer carries it.
    package func rewrite(containing needle: [UInt8], _ rewrite: @escaping @Sendable (ScanEvent) -> ScanEvent?) async throws
        -> Int
    {
        let candidates = try await database.read("find the events to rewrite") { db in
            try Self.fetch(
                db, sql: "SELECT seq, kind, device, json FROM event WHERE instr(json, ?) > 0 ORDER BY seq",
                arguments: [Data(needle)])
        }
        let rewritten = candidates.compactMap { $0.rewritten(rewrite) }
        guard !rewritten.isEmpty else { return 0 }
        return try await database.write("rewrite \(rewritten.count) journaled events") { db in
            let update = try db.cachedStatement(sql: "UPDATE event SET json = ? WHERE seq = ?")
            var count = 0
            for event in rewritten {
                try update.execute(arguments: [Data(event.json), Int64(event.seq)])
                count += db.changesCount
            }
            return count
        }
    }
}
