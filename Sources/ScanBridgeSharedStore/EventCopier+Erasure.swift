import Logging
import PostgresNIO
import ScanBridgeModel

extension EventCopier {
    /// Rewrites the copies that carry the wallet's customer or card, a batch at a time, in
    /// key order. Between the journal's rewrite and this, a batch read before the rewrite
    /// may land; taking turns with the copy (`gate`) makes this run after it.
    func eraseCustomer(walletAddress: String, client: PostgresClient, logger: Logger, answerLimit: Duration) async throws
        -> Int
    {
        try await gate.through {
            var rewritten = 0
            var after = (counter: "", seq: Int64(0))
            while true {
                let rows = try await withDeadline("the events to erase a customer from", answerLimit) {
                    [after, limit = batchEvents] in
                    var rows: [(String, Int64, String)] = []
                    for try await row in try await client.query(
                        """
                        SELECT counter_id, seq, event::text FROM scan_events
                        WHERE (event->'resolution'->'customer'->>'walletAddress' = \(walletAddress)
                            OR event->'resolution'->'card'->>'walletAddress' = \(walletAddress))
                            AND (counter_id, seq) > (\(after.counter), \(after.seq))
                        ORDER BY counter_id, seq LIMIT \(limit)
                        """, logger: logger
                    ).decode((String, Int64, String).self) {
                        rows.append(row)
                    }
                    return rows
                }
                guard let last = rows.last else { return rewritten }
                after = (last.0, last.1)
                var counters: [String] = []
                var seqs: [Int64] = []
                var bodies: [String] = []
                for (counter, seq, text) in rows {
                    guard let event = try? ScanEvent(wire: JSONValue(parsing: Array(text.utf8))),
                        let erased = event.erasingCustomer(walletAddress: walletAddress)
                    else { continue }
                    counters.append(counter)
                    seqs.append(seq)
                    bodies.append(StorableJSON.text(erased.json()))
                }
                guard !seqs.isEmpty else { continue }
                _ = try await withDeadline("the erasure of a customer", answerLimit) { [counters, seqs, bodies] in
                    try await client.query(
                        """
                        UPDATE scan_events SET event = u.body
                        FROM unnest(\(counters)::text[], \(seqs)::bigint[], \(bodies)::jsonb[]) AS u(counter_id, seq, body)
                        WHERE scan_events.counter_id = u.counter_id AND scan_events.seq = u.seq
                        """, logger: logger)
                }
                rewritten += seqs.count
            }
        }
    }
}
