/// How the journal's upkeep is going, for `bridge.hello` and `scanbridge doctor`: the size of
/// the write-ahead log, and the prunes and checkpoints that failed since the daemon started
/// (each is also logged). A log that only grows, or failures that keep counting, need a person.
package struct JournalHealth: Sendable, Hashable {
    /// Bytes of the write-ahead log file (0 when there is none).
    package var walBytes: Int64
    package var pruneFailures: Int
    package var checkpointFailures: Int

    package init(walBytes: Int64 = 0, pruneFailures: Int = 0, checkpointFailures: Int = 0) {
        self.walBytes = walBytes
        self.pruneFailures = pruneFailures
        self.checkpointFailures = checkpointFailures
    }
}
