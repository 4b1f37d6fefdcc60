import Foundation
import Logging
import PostgresNIO
import ScanBridgeCore
import ScanBridgeModel

/// A customer's erasure in the copies. The erased wallet is recorded in `erased_wallets`, then
/// every copy that carries it is rewritten; and every batch any counter copies later (events
/// made while it was offline) is rewritten on its way in, so the data never comes back.
extension EventCopier {
    /// The advisory lock a batch holds shared and an erasure alone: "SBERASE" in ASCII.
    static let erasureLock: Int64 = 0x53_4245_5241_5345
    /// The largest copy an erasure reads, far above any event a counter journals (a repair
    /// order's 256 devices at their bounds are under 1 MiB); a row past it no counter wrote.
    static let maxCopyBytes = 2 << 20
    /// The bytes of copies one page of an erasure reads, at most (and one copy at least).
    static let erasurePageBytes = 8 << 20

    func eraseCustomer(walletAddress: String, pool: StorePool, logger: Logger, answerLimit: Duration) async throws
        -> Int
    {
        // Waits for the batches being copied, so each either saw the wallet or is in the table.
        try await pool.withConnection("the record of an erasure", within: answerLimit) { connection in
            try await connection.withTransaction(logger: logger) { connection in
                try await connection.query("SELECT pg_advisory_xact_lock(\(Self.erasureLock))", logger: logger)
                try await connection.query(
                    """
                    INSERT INTO erased_wallets (wallet_address, erased_at) VALUES (\(walletAddress), now())
                    ON CONFLICT (wallet_address) DO UPDATE SET erased_at = excluded.erased_at
                    """, logger: logger)
            }
        }
        // A copy no counter could have written (past the bounds) is not read: it goes whole.
        var rewritten = try await pool.withConnection("the copies past bounds to erase", within: answerLimit) {
            connection in
            try await connection.query(
                """
                WITH gone AS (
                    DELETE FROM scan_events
                    WHERE (event->'resolution'->'customer'->>'walletAddress' = \(walletAddress)
                        OR event->'resolution'->'card'->>'walletAddress' = \(walletAddress))
                        AND (octet_length(event::text) > \(Self.maxCopyBytes) OR octet_length(counter_id) > 64)
                    RETURNING 1)
                SELECT count(*)::bigint FROM gone
                """, logger: logger
            ).decode(Int64.self).collectAll().first.map(Int.init) ?? 0
        }
        if rewritten > 0 {
            logger.warning(
                "copies of events past any counter's bounds carried an erased customer and were deleted",
                metadata: ["count": "\(rewritten)"])
        }
        var after = (counter: "", seq: Int64(0))
        while true {
            let rows = try await pool.withConnection("the events to erase a customer from", within: answerLimit) {
                [after, limit = batchEvents] connection in
                var rows: [(String, Int64, String)] = []
                for try await row in try await connection.query(
                    """
                    SELECT counter_id, seq, event FROM (
                        SELECT counter_id, seq, event::text AS event,
                            sum(octet_length(event::text)) OVER (ORDER BY counter_id, seq) AS running
                        FROM scan_events
                        WHERE (event->'resolution'->'customer'->>'walletAddress' = \(walletAddress)
                            OR event->'resolution'->'card'->>'walletAddress' = \(walletAddress))
                            AND (counter_id, seq) > (\(after.counter), \(after.seq))
                            AND octet_length(event::text) <= \(Self.maxCopyBytes) AND octet_length(counter_id) <= 64
                        ORDER BY counter_id, seq LIMIT \(limit)
                    ) page
                    WHERE running <= \(Self.erasurePageBytes) OR running = octet_length(event)
                    ORDER BY counter_id, seq
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
            try await pool.withConnection("the erasure of a customer", within: answerLimit) {
                [counters, seqs, bodies] connection in
                try await connection.query(
                    """
                    UPDATE scan_events SET event = u.body
                    FROM unnest(\(counters)::text[], \(seqs)::bigint[], \(bodies)::jsonb[]) AS u(counter_id, seq, body)
                    WHERE scan_events.counter_id = u.counter_id AND scan_events.seq = u.seq
                    """, logger: logger)
            }
            rewritten += seqs.count
        }
    }

    /// The wallets of the batch's events that were erased, with when.
    static func erasedWallets(in events: [JournaledEvent], _ connection: PostgresConnection, logger: Logger)
        async throws -> [String: Date]
    {
        let named = Set(events.flatMap { wallets(of: $0) })
        guard !named.isEmpty else { return [:] }
        var erased: [String: Date] = [:]
        for try await (wallet, time) in try await connection.query(
            "SELECT wallet_address, erased_at FROM erased_wallets WHERE wallet_address = ANY(\(Array(named)))",
            logger: logger
        ).decode((String, Date).self) {
            erased[wallet] = time
        }
        return erased
    }

    /// The event's JSON as `scan_events` stores it, without the customers of wallets erased
    /// after it (a wallet linked again after its erasure has its later events kept).
    static func storable(_ event: JournaledEvent, erasing erased: [String: Date]) -> String {
        guard !erased.isEmpty, var scan = scanEvent(event) else { return StorableJSON.text(event.json) }
        var changed = false
        for wallet in wallets(of: scan) where erased[wallet].map({ scan.time <= $0 }) == true {
            if let erasedEvent = scan.erasingCustomer(walletAddress: wallet) {
                scan = erasedEvent
                changed = true
            }
        }
        return StorableJSON.text(changed ? scan.json() : event.json)
    }

    /// The wallets an event's resolution names (its customer's, its card's). Only events that
    /// mention a wallet at all are parsed.
    static func wallets(of event: JournaledEvent) -> Set<String> {
        guard event.json.firstRange(of: Array(#""walletAddress""#.utf8)) != nil, let scan = scanEvent(event) else {
            return []
        }
        return wallets(of: scan)
    }

    private static func wallets(of scan: ScanEvent) -> Set<String> {
        let details = scan.resolution.details
        return Set(
            [details["customer"]?["walletAddress"]?.stringValue, details["card"]?["walletAddress"]?.stringValue]
                .compactMap { $0 })
    }

    private static func scanEvent(_ event: JournaledEvent) -> ScanEvent? {
        try? ScanEvent(wire: JSONValue(parsing: event.json))
    }
}
