import Synchronization

/// Each device's reads, in order, on a lane of their own: a slow handler for one device's
/// read holds up that device's later reads only, never another device's
/// (docs/architecture.md, Design decisions).
///
/// A lane records the reads waiting in it together, up to `batchLimit` at a time, in the order
/// read: a device that reads faster than a commit takes shares its commits instead of waiting
/// for one each (docs/architecture.md, Design decisions).
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
    /// The most reads recorded together.
    static let batchLimit = 64
    private let spool: ReadSpool
    private let record: @Sendable ([Taken]) async -> Void
    private let metrics: ScanMetrics
    private let dropped: @Sendable (_ deviceID: String) -> Void
    private let recovered: @Sendable (_ deviceID: String, _ dropped: Int) -> Void
    private let state = Mutex(State())

    /// - Parameters:
    ///   - record: ingests reads of one device, in order; a lane calls it for one batch at a time.
    ///   - dropped: a lane was full and dropped a read (called for the first drop until it empties).
    ///   - recovered: a lane that dropped reads has emptied.
    init(
        capacity: Int, spool: ReadSpool, metrics: ScanMetrics = .none, record: @escaping @Sendable ([Taken]) async -> Void,
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
        submit(read, dropping: true)
    }

    /// Queues a read on its device's lane once there is room (`DeviceDriver.readsWait`).
    func submitWaitingForRoom(_ read: RawRead) async {
        while !submit(read, dropping: false) {
            // The host stops: the read is dropped and reported as a device's would be.
            guard !Task.isCancelled else { return submit(read) }
            // A full lane records a batch in about a commit's time: no need to be woken sooner.
            try? await Task.sleep(for: .milliseconds(1))
        }
    }

    /// Queues the read, or, when the lane is full, drops it (`dropping`) or answers false.
    @discardableResult
    private func submit(_ read: RawRead, dropping: Bool) -> Bool {
        let taken = ContinuousClock.now
        let lane = state.withLock { state in
            if let lane = state.open[read.device] { return lane }
            let lane = makeLane(device: read.device)
            state.open[read.device] = lane
            return lane
        }
        let first: Bool? = lane.counts.withLock { counts in
            guard counts.queued < capacity, spool.reserve(read) else {
                guard dropping else { return false }
                counts.dropped += 1
                return counts.dropped == 1
            }
            counts.queued += 1
            return nil
        }
        if first != nil, dropping { metrics.readDropped(kind: read.kind, driver: read.driver) }
        switch first {
        case nil: lane.continuation.yield((read, taken))
        case true?: dropped(read.device)
        case false?: return dropping
        }
        return true
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
            var reads = reads.makeAsyncIterator()
            while let first = await reads.next() {
                // The reads counted as queued are in the stream, or about to be: taking them
                // does not wait for a read to come.
                var batch = [first]
                while batch.count < Self.batchLimit, lane.counts.withLock({ $0.queued }) > batch.count,
                    let next = await reads.next()
                {
                    batch.append(next)
                }
                await self.record(batch)
                for taken in batch { self.spool.release(taken.read) }
                let dropped = lane.counts.withLock { counts -> Int in
                    counts.queued -= batch.count
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
