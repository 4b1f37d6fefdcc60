/// How much of the journal is kept for `since` replays and `events.recent`.
public struct JournalRetention: Sendable, Hashable {
    /// Keep at most this many events.
    public var maxEvents: Int
    /// Drop events older than this.
    public var maxAge: Duration

    public init(maxEvents: Int = 1_000_000, maxAge: Duration = .seconds(30 * 24 * 3600)) {
        self.maxEvents = maxEvents
        self.maxAge = maxAge
    }
}
