package import ScanBridgeModel

/// The durable, ordered record of every event (the SQLite journal, or memory in tests).
///
/// A journal assigns `seq` (gap-free, never reused) when it stores an event, and hands
/// every committed batch to its commit observer in `seq` order, before `append` returns:
/// that is how the publisher learns of events, so nothing is published that is not stored.
package protocol Journal: Sendable {
    /// Stores the events durably, in order and together (one wait for all of them), and
    /// returns them with their `seq`s. All are stored, or none.
    func append(contentsOf events: [ScanEvent]) async throws -> [JournaledEvent]

    /// Events with `after < seq <= through` that match the filter, oldest first: at most
    /// `limit`, and no more than `maxBytes` of JSON unless the first alone is larger.
    func events(after: UInt64, through: UInt64, filter: SubscriptionFilter, limit: Int, maxBytes: Int) async throws
        -> [JournaledEvent]

    /// The newest events of the given kinds (all kinds when nil), oldest first: at most `limit`,
    /// and no more than `maxBytes` of JSON (the oldest are left out) unless the newest alone is larger.
    func recent(limit: Int, kinds: Set<DeviceKind>?, maxBytes: Int) async throws -> [JournaledEvent]

    /// The oldest `seq` still retained, or nil when the journal holds no event.
    func oldestRetainedSeq() async throws -> UInt64?

    /// The last `seq` assigned (0 when none ever was).
    var latestSeq: UInt64 { get }

    /// Rewrites stored events in place (their `seq`, kind and device stay): each one whose JSON
    /// contains `needle` is handed to `rewrite`, and stored as it answers, or kept when it
    /// answers nil. Returns how many were rewritten. Subscribers are not told: this is for
    /// taking data out (`customers.erase`), not for events to happen again.
    func rewrite(containing needle: [UInt8], _ rewrite: @escaping @Sendable (ScanEvent) -> ScanEvent?) async throws -> Int

    /// The log's size and the upkeep that failed; it may read the file system, so it is async.
    func health() async -> JournalHealth

    /// Retention drops no event after `seq` until told a later one: a copy elsewhere (the
    /// shop's store) has not taken them yet. Nil holds none.
    func hold(after seq: UInt64?)
}

extension Journal {
    /// A journal with no log file and no upkeep (memory) has nothing to report.
    package func health() async -> JournalHealth { JournalHealth() }

    /// A journal with no retention (memory) drops nothing to hold back.
    package func hold(after seq: UInt64?) {}

    package func events(after: UInt64, through: UInt64, filter: SubscriptionFilter, limit: Int) async throws
        -> [JournaledEvent]
    {
        try await events(after: after, through: through, filter: filter, limit: limit, maxBytes: .max)
    }

    package func recent(limit: Int, kinds: Set<DeviceKind>?) async throws -> [JournaledEvent] {
        try await recent(limit: limit, kinds: kinds, maxBytes: .max)
    }

    /// Takes a customer's personal data out of every stored event that carries it
    /// (`ScanEvent.erasingCustomer(walletAddress:)`); returns how many events were rewritten.
    package func eraseCustomer(walletAddress: String) async throws -> Int {
        // Only events that name the wallet are read whole.
        var needle: [UInt8] = []
        JSONOutput.appendString(walletAddress, to: &needle)
        return try await rewrite(containing: needle) { $0.erasingCustomer(walletAddress: walletAddress) }
    }

    /// Stores the event durably and returns it with its `seq`.
    package func append(_ event: ScanEvent) async throws -> JournaledEvent {
        try await append(contentsOf: [event])[0]
    }
}
