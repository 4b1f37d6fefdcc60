import Logging
package import PostgresNIO
package import ScanBridgeCore
import ScanBridgeModel
import Synchronization

/// Copies this counter's journaled events to the shop's `scan_events`, at least once and in
/// `seq` order, resuming after any outage from what the table already holds.
///
/// Where to resume is read from `scan_events` itself (the highest `seq` of this counter)
/// each time the store is reached again, never kept here: each batch is one statement, so
/// the table holds every event up to its highest `seq`. A batch whose answer was lost is
/// found there on resuming; a batch that meets a `seq` already there fails whole, so no
/// other daemon's events are ever mixed in.
package final class EventCopier: Sendable {
    private struct State {
        /// Whether the copy must first read where it stands (at start, after any failure).
        var mustResume = true
        /// The highest `seq` known to be in `scan_events`; nil until the store was reached.
        /// Kept through an outage, so the lag counts from it.
        var copiedThrough: UInt64?
        /// Whether the store answered last time; nil before it was first asked.
        var reachable: Bool?
    }

    let journal: any Journal
    let counter: String
    /// Events read from the journal per statement, and their JSON's bytes.
    let batchEvents: Int
    let batchBytes: Int
    private let state = Mutex(State())
    /// The journal's head when the daemon started: until the store is reached, the events
    /// after it are the ones known not to be copied.
    private let startSeq: UInt64
    /// Rung on every commit of the journal.
    private let doorbell: Doorbell

    package init(
        journal: any Journal, counter: String, doorbell: Doorbell, batchEvents: Int = 500, batchBytes: Int = 4 << 20
    ) {
        self.journal = journal
        self.counter = counter
        self.batchEvents = batchEvents
        self.batchBytes = batchBytes
        self.startSeq = journal.latestSeq
        self.doorbell = doorbell
        // Until the store says how far the copy stands, none of the journal is known copied.
        journal.hold(after: 0)
    }

    package var status: StoreStatus {
        let (copied, reachable) = state.withLock { ($0.copiedThrough, $0.reachable) }
        let head = journal.latestSeq
        let lag = head - min(head, copied ?? startSeq)
        return StoreStatus(kind: .postgresql, state: reachable == true ? .ok : .offline, copyLag: lag)
    }

    /// Whether the store failed at the last attempt (not merely not asked yet).
    package var failedLastTime: Bool { state.withLock { $0.reachable == false } }

    /// Another connection to the store was lost (the change feed's): the store is offline
    /// at once, not at the copy's next question, and the copy asks again now.
    func lost(logger: Logger) {
        if markReachable(false, logger: logger) {
            logger.warning("the shop's store went away; events are kept and copied when it returns")
        }
        state.withLock { $0.mustResume = true }
        doorbell.ring()
    }

    /// Copies until cancelled. `connected` runs first each time the store is reached again
    /// (the schema's migration); failures wait `backoff`, doubling up to its last value.
    package func run(
        pool: StorePool, logger: Logger, idleCheck: Duration = .seconds(5), answerLimit: Duration = .seconds(10),
        backoff: (first: Duration, last: Duration) = (.milliseconds(250), .seconds(30)),
        connected: @escaping @Sendable (PostgresConnection) async throws -> Void
    ) async {
        var wait = backoff.first
        var lastReason: String?
        var wakes = doorbell.rings()
        // Wakes the copy now and then while no one scans, so that it asks the store whether it
        // is still there and `state` stays true.
        let ticker = Task { [doorbell] in
            while !Task.isCancelled {
                try? await Task.sleep(for: idleCheck)
                doorbell.ring()
            }
        }
        defer { ticker.cancel() }
        while !Task.isCancelled {
            do {
                if state.withLock({ $0.mustResume }) {
                    try await pool.withConnection("a migration and where the copy stands", within: answerLimit) {
                        try await connected($0)
                        try await self.resume($0, logger: logger)
                    }
                }
                let copied = try await pool.withConnection("a batch of events", within: answerLimit) {
                    try await self.copyBatch($0, logger: logger)
                }
                markReachable(true, logger: logger)
                if copied == 0 {
                    guard await wakes.next() != nil else { return }
                    if journal.latestSeq == state.withLock({ $0.copiedThrough }) {
                        try await pool.withConnection("whether it is there", within: min(answerLimit, idleCheck)) {
                            try await $0.query("SELECT 1", logger: logger)
                        }
                    }
                }
                wait = backoff.first
                lastReason = nil
            } catch is CancellationError {
                return
            } catch {
                if Task.isCancelled { return }
                markReachable(false, logger: logger)
                // Said once per cause, not once per retry.
                let reason = SharedStoreError.reason(error)
                if reason != lastReason {
                    if error is CounterTaken {
                        logger.error("events are not copied to the shop's store: \(reason)")
                    } else {
                        logger.warning(
                            "the shop's store cannot be reached; events are kept and copied when it returns",
                            metadata: ["error": "\(reason)", "counter": "\(counter)"])
                    }
                    lastReason = reason
                }
                state.withLock { $0.mustResume = true }
                // No answer at all: the next attempt is a fresh pool's first (`StorePool`).
                if SharedStoreError.sqlState(error) == nil && !(error is CounterTaken) { pool.renew() }
                try? await Task.sleep(for: wait)
                wait = min(wait * 2, backoff.last)
            }
        }
    }

    /// Reads where this counter's copy stands, and checks that what the table holds last for
    /// this counter is this journal's event: a second daemon given the same `counter_id`, or
    /// this counter's database replaced, would otherwise mix two journals under one name.
    private func resume(_ connection: PostgresConnection, logger: Logger) async throws {
        var last: (seq: Int64, id: String?)?
        for try await row in try await connection.query(
            """
            SELECT seq, CASE WHEN octet_length(event->>'id') <= 64 THEN event->>'id' END FROM scan_events
            WHERE counter_id = \(counter) ORDER BY seq DESC LIMIT 1
            """, logger: logger
        ).decode((Int64, String?).self) {
            last = row
        }
        guard let last else {
            copied(through: 0)
            return
        }
        let head = journal.latestSeq
        // A seq no journal gives (another program's row) is not this journal's either.
        guard last.seq >= 1, UInt64(last.seq) <= head else {
            throw CounterTaken(counter: counter, stored: last.seq, head: head)
        }
        let seq = UInt64(last.seq)
        // An event the journal no longer keeps cannot be compared; the head check above is all there is.
        let local = try await journal.events(after: seq - 1, through: seq, filter: .all, limit: 1, maxBytes: .max)
        if let event = local.first, event.seq == seq, Self.eventID(event.json) != last.id {
            throw CounterTaken(counter: counter, stored: last.seq, head: head)
        }
        copied(through: seq)
    }

    /// The copy holds every event through `seq`: the journal may drop them, and no later one.
    private func copied(through seq: UInt64) {
        state.withLock { $0 = State(mustResume: false, copiedThrough: seq, reachable: $0.reachable) }
        journal.hold(after: seq)
    }

    private static func eventID(_ json: [UInt8]) -> String? {
        guard case .object(let members) = try? JSONValue(parsing: json) else { return nil }
        return members["id"]?.stringValue
    }

    /// Copies the next batch; returns how many events it copied.
    private func copyBatch(_ connection: PostgresConnection, logger: Logger) async throws -> Int {
        guard let copied = state.withLock({ $0.mustResume ? nil : $0.copiedThrough }) else { return 0 }
        let head = journal.latestSeq
        guard copied < head else { return 0 }
        let events = try await journal.events(
            after: copied, through: head, filter: .all, limit: batchEvents, maxBytes: batchBytes)
        guard let last = events.last else { return 0 }
        if let first = events.first, first.seq > copied + 1 {
            logger.error(
                "events were dropped from the journal before they could be copied to the shop's store",
                metadata: ["from": "\(copied + 1)", "to": "\(first.seq - 1)", "counter": "\(counter)"])
        }
        try await connection.withTransaction(logger: logger) { connection in
            // Shared with every other counter's batches; an erasure takes it alone, so a batch
            // either sees the erased wallet or lands before the erasure rewrites the copies.
            try await connection.query("SELECT pg_advisory_xact_lock_shared(\(Self.erasureLock))", logger: logger)
            let erased = try await Self.erasedWallets(in: events, connection, logger: logger)
            let seqs = events.map { Int64($0.seq) }
            let kinds = events.map(\.kind.rawValue)
            let devices = events.map(\.device)
            let bodies = events.map { Self.storable($0, erasing: erased) }
            // No ON CONFLICT: a seq already there means another journal's events (the copy
            // resumes after its own), and the whole batch is refused rather than mixed in.
            try await connection.query(
                """
                INSERT INTO scan_events (counter_id, seq, time, kind, device, text, status, event)
                SELECT \(counter), e.seq, (e.body->>'time')::timestamptz, e.kind, e.device, e.body->>'text',
                    e.body->'resolution'->>'status', e.body
                FROM unnest(\(seqs)::bigint[], \(kinds)::text[], \(devices)::text[], \(bodies)::jsonb[])
                    AS e(seq, kind, device, body)
                """, logger: logger)
        }
        self.copied(through: last.seq)
        return events.count
    }

    /// Records whether the store answered; true when that changed.
    @discardableResult
    private func markReachable(_ reachable: Bool, logger: Logger) -> Bool {
        let changed = state.withLock { state in
            defer { state.reachable = reachable }
            return state.reachable != reachable
        }
        if changed && reachable { logger.info("the shop's store is reachable", metadata: ["counter": "\(counter)"]) }
        return changed
    }

    /// `scan_events` holds more of this counter's events than its journal ever made.
    struct CounterTaken: Error, CustomStringConvertible {
        let counter: String
        let stored: Int64
        let head: UInt64
        var description: String {
            "the shop's scan_events holds events of counter '\(counter)' up to seq \(stored) that are not this "
                + "journal's (its head is \(head)): another daemon uses counter_id '\(counter)', or this counter's "
                + "database was replaced; give each daemon its own counter_id"
        }
    }
}
