/// How much of the journal is kept for `since` replays and `events.recent`.
package struct JournalRetention: Sendable, Hashable {
    /// Keep at most this many events.
    package var maxEvents: Int
    /// Drop events older than this.
    package var maxAge: Duration

    package init(maxEvents: Int = 1_000_000, maxAge: Duration = .seconds(30 * 24 * 3600)) {
        self.maxEvents = maxEvents
        self.maxAge = maxAge
    }
}
