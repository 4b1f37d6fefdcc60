import Synchronization

/// Each device's reads, in order, on a lane of their own: a slow handler for one device's
/// read holds up that device's later reads only, never another device's
/// (docs/architecture.md, Design decisions).
///
/// A lane holds at most `capacity` reads waiting, and all lanes together what the daemon's
/// `ReadSpool` allows; a device that reads faster than its reads can be recorded has the newest
/// dropped and reported instead of growing memory. The lanes
/// run in tasks of their own, not the driver's: when the daemon stops, what a device read is
/// still recorded (`drain()`).
final class ReadLanes: Sendable {
    /// A read and when the daemon took it from its driver, where its latency starts.
    typealias Taken = (read: RawRead, at: ContinuousClock.Instant)

    private final class Lane: Sendable {
        let continuation: AsyncStream<Taken>.Continuation
        /// Reads handed to the lane and not yet recorded, and those dropped since it last emptied.
        let counts = Mutex((queued: 0, dropped: 0))
        let task = Mutex<Task<Void, Never>?>(nil)

        init(continuation: AsyncStream<Taken>.Continuation) {
            self.continuation = continuation
        }
    }

    private struct State {
        var open: [String: Lane] = [:]
        /// Lanes of devices that went, still recording what they hold.
        var closing: [ObjectIdentifier: Lane] = [:]
    }

    let capacity: Int
    private let spool: ReadSpool
    private let record: @Sendable (Taken) async -> Void
    private let metrics: ScanMetrics
    private let dropped: @Sendable (_ deviceID: String) -> Void
    private let recovered: @Sendable (_ deviceID: String, _ dropped: Int) -> Void
    private let state = Mutex(State())

    /// - Parameters:
    ///   - record: ingests one read; a lane calls it for one read at a time.
    ///   - dropped: a lane was full and dropped a read (called for the first drop until it empties).
    ///   - recovered: a lane that dropped reads has emptied.
    init(
        capacity: Int, spool: ReadSpool, metrics: ScanMetrics = .none, record: @escaping @Sendable (Taken) async -> Void,
        dropped: @escaping @Sendable (String) -> Void, recovered: @escaping @Sendable (String, Int) -> Void
    ) {
        self.capacity = capacity
        self.metrics = metrics
        self.spool = spool
        self.record = record
        self.dropped = dropped
        self.recovered = recovered
    }

    /// Queues a read on its device's lane, or drops it when the lane is full.
    func submit(_ read: RawRead) {
        let taken = ContinuousClock.now
        let lane = state.withLock { state in
            if let lane = state.open[read.device] { return lane }
            let lane = makeLane(device: read.device)
            state.open[read.device] = lane
            return lane
        }
        let first: Bool? = lane.counts.withLock { counts in
            guard counts.queued < capacity, spool.reserve(read) else {
                counts.dropped += 1
                return counts.dropped == 1
            }
            counts.queued += 1
            return nil
        }
        if first != nil { metrics.readDropped(kind: read.kind, driver: read.driver) }
        switch first {
        case nil: lane.continuation.yield((read, taken))
        case true?: dropped(read.device)
        case false?: break
        }
    }

    /// The device went: its lane records what it holds, then ends.
    func close(_ deviceID: String) {
        let lane = state.withLock { state -> Lane? in
            guard let lane = state.open.removeValue(forKey: deviceID) else { return nil }
            state.closing[ObjectIdentifier(lane)] = lane
            return lane
        }
        lane?.continuation.finish()
    }

    /// Ends every lane once it has recorded what it holds, and returns then.
    func drain() async {
        let lanes = state.withLock { state in
            for lane in state.open.values { state.closing[ObjectIdentifier(lane)] = lane }
            state.open = [:]
            return Array(state.closing.values)
        }
        for lane in lanes { lane.continuation.finish() }
        for lane in lanes { await lane.task.withLock { $0 }?.value }
    }

    private func makeLane(device: String) -> Lane {
        let (reads, continuation) = AsyncStream.makeStream(of: Taken.self)
        let lane = Lane(continuation: continuation)
        // Unstructured: the daemon's shutdown cancels the drivers, not the recording of what they read.
        let task = Task {
            for await taken in reads {
                await self.record(taken)
                self.spool.release(taken.read)
                let dropped = lane.counts.withLock { counts -> Int in
                    counts.queued -= 1
                    guard counts.queued == 0 else { return 0 }
                    defer { counts.dropped = 0 }
                    return counts.dropped
                }
                if dropped > 0 { self.recovered(device, dropped) }
            }
            _ = self.state.withLock { $0.closing.removeValue(forKey: ObjectIdentifier(lane)) }
        }
        lane.task.withLock { $0 = task }
        return lane
    }
}
