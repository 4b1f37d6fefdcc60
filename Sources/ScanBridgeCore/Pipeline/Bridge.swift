package import ScanBridgeModel

/// The flow of every read, a device's and an injection's alike, wired once (`record`):
/// normalise, resolve with the handlers, journal, publish, count.
package final class Bridge: Sendable {
    package let registry: DeviceRegistry
    package let router: Router
    package let publisher: Publisher
    package let journal: any Journal
    package let normalizer: Normalizer
    /// Device reads waiting to be journaled, for the whole daemon.
    package let spool: ReadSpool
    /// Replays' journal reads, two at a time: the database has a few readers, and a hundred
    /// event streams replaying from the start would otherwise hold them all, the scans'
    /// lookups waiting behind.
    private let replayReads = TurnTaking(turns: 2)

    /// How a batch of reads is journaled when the journal cannot be written.
    package enum Journaling {
        /// Fails at once, every read of the batch `unavailable`: an injection's client hears
        /// why and may send again.
        case failFast
        /// Waits in the spool and writes again until the batch commits (a device's reads, which
        /// nobody can send again); `waiting` hears the first failure.
        case untilStored(waiting: (any Error) -> Void)
    }

    /// A read as the journal stored it, and the resolution it was stored with (for device feedback).
    package struct Recorded: Sendable {
        package let event: JournaledEvent
        package let resolution: Resolution
    }

    package init(
        journal: any Journal, publisher: Publisher, router: Router, normalizer: Normalizer = Normalizer(),
        spool: ReadSpool = ReadSpool()
    ) {
        self.journal = journal
        self.spool = spool
        self.publisher = publisher
        self.router = router
        self.normalizer = normalizer
        self.registry = DeviceRegistry(publisher: publisher, metrics: publisher.metrics)
        publisher.resume(after: journal.latestSeq)
    }

    /// The one path of every read: each read is normalised (an invalid one fails alone,
    /// `invalidParams`), the valid ones are resolved by the router together, then journaled
    /// in one commit. Publishing is the commit's: the journal hands each committed batch to
    /// the publisher in `seq` order (`onCommit`, where the journal is made), so no event is
    /// seen before it is stored, nor out of order. Each committed event is counted and timed
    /// from when its read was taken. `waited` tells whether the journal failed meanwhile.
    package func record(
        _ reads: [(read: RawRead, takenAt: ContinuousClock.Instant)], journaling: Journaling
    ) async -> (outcomes: [Result<Recorded, any Error>], waited: Bool) {
        var waited = false
        let outcomes = await batchOutcomes(reads, check: { (try normalizer.normalize($0.read), $0.takenAt) }) {
            (checked: [(ScanEvent, ContinuousClock.Instant)]) -> [Result<Recorded, any Error>] in
            guard !checked.isEmpty else { return [] }
            var events = checked.map(\.0)
            await router.check(&events)
            for (index, resolution) in await router.resolve(events).enumerated() {
                events[index].resolution = resolution
            }
            let stored: Result<[JournaledEvent], any Error>
            switch journaling {
            case .failFast:
                do { stored = .success(try await journal.append(contentsOf: events)) } catch { stored = .failure(error) }
            case .untilStored(let waiting):
                let commit = await spool.commit(events, to: journal, waiting: waiting)
                waited = commit.waited
                stored =
                    commit.stored.map { .success($0) }
                    ?? .failure(ScanBridgeError.unavailable("the daemon stopped while the journal could not be written"))
            }
            switch stored {
            case .success(let stored):
                return stored.indices.map { index in
                    committed(events[index], takenAt: checked[index].1)
                    return .success(Recorded(event: stored[index], resolution: events[index].resolution))
                }
            case .failure(let error):
                return events.map { _ in .failure(error) }
            }
        }
        return (outcomes, waited)
    }

    /// Records one injected read (`record`); returns the event once it is stored and published.
    /// Invalid reads throw `invalidParams`; a journal failure throws `unavailable`.
    package func ingest(_ read: RawRead) async throws -> JournaledEvent {
        try await record([(read, ContinuousClock.now)], journaling: .failFast).outcomes[0].get().event
    }

    /// Many injected reads, journaled together: one wait for one commit instead of one each.
    package func ingest(_ reads: [RawRead]) async -> [Result<JournaledEvent, any Error>] {
        let taken = ContinuousClock.now
        return await record(reads.map { ($0, taken) }, journaling: .failFast).outcomes.map { $0.map(\.event) }
    }

    /// Counts an event the journal committed, and times it from when its read was taken.
    private func committed(_ event: ScanEvent, takenAt taken: ContinuousClock.Instant) {
        let metrics = publisher.metrics
        metrics.scanCommitted(kind: event.kind, driver: event.driver, status: event.resolution.status)
        metrics.scanDuration.record(ContinuousClock.now - taken)
    }

    /// Replays the journal to a new subscription: the events after `since` through `head`,
    /// then those published meanwhile, read from the journal too, until it has caught up and
    /// the subscription goes live; a gap notice before any events no longer kept. A client
    /// that reads slowly slows its replay, and holds one page and what its sink lets wait.
    package func replay(_ subscription: Subscription, after since: UInt64, through head: UInt64) async throws {
        var cursor = since
        var target = head
        while true {
            while cursor < target {
                // A client that does not read holds no page: the next is read once it has room.
                try await subscription.sink.waitForRoom(for: subscription)
                let (page, oldest) = try await replayReads.run { [journal, cursor, target] in
                    let page = try await journal.events(
                        after: cursor, through: target, filter: subscription.filter, limit: 128, maxBytes: 256 << 10)
                    // Read after the page: retention may prune while a slow client replays, and
                    // what it pruned before the page's first event is a gap the client is told of.
                    return (page, try await journal.oldestRetainedSeq() ?? target + 1)
                }
                let missedThrough = min(oldest - 1, (page.first?.seq ?? target + 1) - 1, target)
                if missedThrough > cursor { subscription.notify(.gap(from: cursor + 1, to: missedThrough)) }
                for event in page {
                    guard try await subscription.sendReplayed(event) else { return }
                }
                guard let last = page.last else { break }
                cursor = last.seq
            }
            cursor = target
            switch subscription.catchUp(through: target) {
            case .live, .ended: return
            case .readThrough(let newer): target = newer
            }
        }
    }

}
