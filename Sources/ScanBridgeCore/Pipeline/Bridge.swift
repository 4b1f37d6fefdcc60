import ScanBridgeModel

/// The flow of one scan, wired once: normalise, route to a handler, journal, publish.
///
/// Drivers, the RPC server and tests all feed reads through `ingest(_:)`.
package final class Bridge: Sendable {
    package let registry: DeviceRegistry
    package let router: Router
    package let publisher: Publisher
    package let journal: any Journal
    package let normalizer: Normalizer
    /// Device reads waiting to be journaled, for the whole daemon.
    package let spool: ReadSpool

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

    /// Normalises, resolves and journals one read; returns the event once it is stored
    /// and published. Invalid reads throw `invalidParams`; a journal failure throws `unavailable`.
    package func ingest(_ read: RawRead) async throws -> JournaledEvent {
        try await ingestResolving(read).event
    }

    /// `ingest(_:)`, also giving the resolution the event was stored with (for device feedback).
    package func ingestResolving(_ read: RawRead) async throws -> (event: JournaledEvent, resolution: Resolution) {
        let taken = ContinuousClock.now
        let event = try await resolve(read)
        let stored = try await journal.append(event)
        committed(event, takenAt: taken)
        return (stored, event.resolution)
    }

    /// Counts an event the journal committed, and times it from when its read was taken.
    func committed(_ event: ScanEvent, takenAt taken: ContinuousClock.Instant) {
        let metrics = publisher.metrics
        metrics.scanCommitted(kind: event.kind, driver: event.driver, status: event.resolution.status)
        metrics.scanDuration.record(ContinuousClock.now - taken)
    }

    /// Normalises and resolves one read, to be journaled: a device's lane journals it apart,
    /// so that a write that fails is tried again without asking the handlers twice.
    package func resolve(_ read: RawRead) async throws -> ScanEvent {
        var event = try normalizer.normalize(read)
        event.resolution = await router.resolve(event)
        return event
    }

    /// Many reads, each as `ingest(_:)` would take it, journaled together: one wait for one
    /// commit instead of one each. Every read has its own outcome (an invalid one fails alone);
    /// a journal failure fails them all.
    package func ingest(_ reads: [RawRead]) async -> [Result<JournaledEvent, any Error>] {
        let taken = ContinuousClock.now
        return await batchOutcomes(reads, check: normalizer.normalize) { events in
            var events = events
            for (index, resolution) in await router.resolve(events).enumerated() {
                events[index].resolution = resolution
            }
            do {
                let stored = try await journal.append(contentsOf: events)
                for event in events { committed(event, takenAt: taken) }
                return stored.map { .success($0) }
            } catch {
                return events.map { _ in .failure(error) }
            }
        }
    }

    /// Replays the journal to a new subscription: a gap notice for the events after `since`
    /// no longer kept, then the events after `since` through `head`, then those published
    /// meanwhile, read from the journal too, until it has caught up and the subscription
    /// goes live. A client that reads slowly slows its replay; it costs no memory.
    package func replay(_ subscription: Subscription, after since: UInt64, through head: UInt64) async throws {
        if since < head {
            let oldest = try await journal.oldestRetainedSeq() ?? head + 1
            if since + 1 < oldest {
                subscription.notify(.gap(from: since + 1, to: min(oldest - 1, head)))
            }
        }
        var cursor = since
        var target = head
        while true {
            while cursor < target {
                let page = try await journal.events(
                    after: cursor, through: target, filter: subscription.filter, limit: 512, maxBytes: 1 << 20)
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
