/// Polls in a row that failed (an error other than EINTR) or woke with nothing to read (the
/// descriptor in POLLERR or POLLNVAL): how long to wait before the next, doubling up to a
/// ceiling, so a descriptor stuck in error costs a rare wake-up instead of a core; and,
/// after `limit` of them, that the loop should give up on the descriptor.
package struct PollBackoff: Sendable {
    package private(set) var failures = 0
    package let limit: Int

    package init(limit: Int = 10) {
        self.limit = limit
    }

    /// A poll that brought something: the next failure starts from the shortest wait again.
    package mutating func succeeded() { failures = 0 }

    /// Counts one failure; the seconds to wait before polling again.
    package mutating func failed() -> Double {
        failures += 1
        return min(1, 0.01 * Double(1 << min(failures - 1, 10)))
    }

    /// So many failures in a row that the descriptor is broken, not briefly troubled.
    package var persistent: Bool { failures >= limit }
}
