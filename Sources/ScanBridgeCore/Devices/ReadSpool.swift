import CoreMetrics
import ScanBridgeModel
import Synchronization

/// The device reads that wait to be journaled, for the whole daemon: bounded in count and
/// bytes, and committed by retrying while the journal cannot be written.
///
/// A read waits in its device's lane (`ReadLanes`), which takes the reads waiting in order, a
/// batch at a time; when the journal fails, the lane keeps retrying the same resolved events,
/// so a device's reads stay in the order read and each gets its `seq` only when it commits
/// (docs/architecture.md, Durability). The lanes' own bound (per device) and this one (per
/// daemon) keep what a journal outage costs in memory; past either, the newest reads are
/// dropped and reported.
package final class ReadSpool: Sendable {
    private struct State {
        var reads = 0
        var bytes = 0
        /// The last write failed: at shutdown, the reads still waiting are given up, not tried.
        var failing = false
        var stopping = false
    }

    package let maxReads: Int
    package let maxBytes: Int
    /// The first wait before writing a failed read again; it doubles up to `maxDelay`.
    let firstDelay: Duration
    let maxDelay: Duration
    private let state = Mutex(State())
    private let metrics: ScanMetrics

    package init(
        maxReads: Int = 10_000, maxBytes: Int = 16 << 20, firstDelay: Duration = .milliseconds(100),
        maxDelay: Duration = .seconds(5), metrics: ScanMetrics = .none
    ) {
        self.metrics = metrics
        self.maxReads = maxReads
        self.maxBytes = maxBytes
        self.firstDelay = firstDelay
        self.maxDelay = maxDelay
    }

    /// Reads taken from devices and not yet journaled (or given up).
    package var count: Int { state.withLock { $0.reads } }

    /// The journal refuses writes now: reads wait here until it takes them again.
    package var isFailing: Bool { state.withLock { $0.failing } }

    /// Makes room for a read, or answers false when the spool is full.
    func reserve(_ read: RawRead) -> Bool {
        let size = Self.size(of: read)
        return state.withLock { state in
            guard state.reads < maxReads, state.bytes + size <= maxBytes else { return false }
            state.reads += 1
            state.bytes += size
            show(state)
            return true
        }
    }

    /// A reserved read was journaled or given up.
    func release(_ read: RawRead) {
        let size = Self.size(of: read)
        state.withLock { state in
            state.reads -= 1
            state.bytes -= size
            show(state)
        }
    }

    /// Under the lock, so that the gauges end as the spool does when two lanes change it at once.
    private func show(_ state: State) {
        metrics.readSpoolReads.set(state.reads)
        metrics.readSpoolBytes.set(state.bytes)
    }

    /// The daemon stops: a read the journal cannot take is given up rather than waited for.
    func stop() {
        state.withLock { $0.stopping = true }
    }

    private var isStopping: Bool { state.withLock { $0.stopping } }

    /// Journals `events` together, writing them again with backoff while the journal fails,
    /// until they commit. Nil when the daemon stops before they could.
    ///
    /// - Parameter waiting: called once, at the first failure.
    /// - Returns: the stored events, and whether they had to wait.
    func commit(_ events: [ScanEvent], to journal: any Journal, waiting: (any Error) -> Void) async
        -> (stored: [JournaledEvent]?, waited: Bool)
    {
        var delay = firstDelay
        var waited = false
        while true {
            // At shutdown a journal that just failed is not asked again: a locked database
            // would hold every waiting read for its whole busy timeout.
            if state.withLock({ $0.stopping && $0.failing }) { return (nil, waited) }
            do {
                let stored = try await journal.append(contentsOf: events)
                state.withLock { $0.failing = false }
                return (stored, waited)
            } catch {
                state.withLock { $0.failing = true }
                if !waited { waiting(error) }
                waited = true
            }
            await sleep(delay)
            delay = min(delay * 2, maxDelay)
        }
    }

    /// Sleeps `duration`, or less when the daemon starts stopping: in slices, since the lane's
    /// task is not cancelled at shutdown (it still records what devices read).
    private func sleep(_ duration: Duration) async {
        var left = duration
        while left > .zero, !isStopping {
            let slice = min(left, .milliseconds(100))
            try? await Task.sleep(for: slice)
            left -= slice
        }
    }

    /// About what a read costs in memory while it waits: its variable parts and a fixed part
    /// for the rest of the value and its queue slot.
    static func size(of read: RawRead) -> Int {
        let ndef = read.ndef?.reduce(0) { $0 + $1.type.utf8.count + $1.value.utf8.count + 32 } ?? 0
        // In parts: as one sum of its nine terms, Swift 6.2's type checker gives up on it.
        let payload: Int = (read.text?.utf8.count ?? 0) + (read.bytes?.count ?? 0) + (read.uid?.count ?? 0)
        let card: Int = (read.atr?.count ?? 0) + (read.cardType?.utf8.count ?? 0)
        return 256 + payload + card + read.device.utf8.count + ndef
    }
}
