import DequeModule
import ScanBridgeModel
import Synchronization

/// One client's interest in events: it replays journaled events first, holding live ones
/// back meanwhile, then delivers live events, so the client sees every `seq` once, in order.
/// A client too slow for its bounded queue overflows: it is told how many events it missed
/// and the subscription ends (it resubscribes with `since`).
package final class Subscription: Sendable {
    package let id: String
    package let filter: SubscriptionFilter
    package let sink: any SubscriptionSink
    /// How many live events may wait while a replay runs.
    let holdCapacity: Int

    private enum Mode {
        case replaying(held: Deque<JournaledEvent>)
        case live
        case overflowed(dropped: Int)
        case closed
    }

    private let mode: Mutex<Mode>

    init(id: String, filter: SubscriptionFilter, sink: any SubscriptionSink, replaying: Bool, holdCapacity: Int) {
        self.id = id
        self.filter = filter
        self.sink = sink
        self.holdCapacity = holdCapacity
        self.mode = Mutex(replaying ? .replaying(held: []) : .live)
    }

    /// A live event, in `seq` order (the publisher calls this from one place at a time).
    func deliver(_ event: JournaledEvent) {
        let overflowed: Bool = mode.withLock { mode in
            switch mode {
            case .replaying(var held):
                if held.count < holdCapacity {
                    held.append(event)
                    mode = .replaying(held: held)
                    return false
                }
                mode = .overflowed(dropped: held.count + 1)
                return true
            case .live:
                if sink.offer(event, for: self) { return false }
                mode = .overflowed(dropped: 1)
                return true
            case .overflowed(let dropped):
                mode = .overflowed(dropped: dropped + 1)
                return false
            case .closed:
                return false
            }
        }
        if overflowed { sink.overflowed(self) }
    }

    /// The replay reached `seq`: send the held events after it and go live.
    package func finishReplay(through seq: UInt64) {
        let overflowed: Bool = mode.withLock { mode in
            guard case .replaying(let held) = mode else { return false }
            var sent = 0
            for event in held where event.seq > seq {
                guard sink.offer(event, for: self) else {
                    mode = .overflowed(dropped: held.count - sent)
                    return true
                }
                sent += 1
            }
            mode = .live
            return false
        }
        if overflowed { sink.overflowed(self) }
    }

    func notify(_ notice: SubscriptionNotice) {
        let open = mode.withLock { mode -> Bool in
            if case .closed = mode { return false }
            return true
        }
        if open { sink.notify(notice, for: self) }
    }

    /// Ends an overflowed subscription and returns how many events it missed.
    package func closeAfterOverflow() -> Int {
        mode.withLock { mode in
            guard case .overflowed(let dropped) = mode else { return 0 }
            mode = .closed
            return dropped
        }
    }

    /// Ends the subscription: nothing more is delivered.
    package func close() {
        mode.withLock { $0 = .closed }
    }

    /// Still replaying: neither live yet, nor overflowed or closed.
    package var isReplaying: Bool {
        mode.withLock { mode in
            if case .replaying = mode { return true }
            return false
        }
    }

    package var isClosed: Bool {
        mode.withLock { mode in
            if case .closed = mode { return true }
            return false
        }
    }
}
