import CoreMetrics
import ScanBridgeModel
import Synchronization

/// One client's interest in events: it replays journaled events first, then delivers live
/// events, so the client sees every `seq` once, in order. Live events that arrive during a
/// replay are not held: the replay reads them from the journal too, until it has caught up
/// (docs/architecture.md, Design decisions). A client too slow for its bounded queue
/// overflows: it is told how many events it missed and the subscription ends at once (it
/// resubscribes with `since`).
package final class Subscription: Sendable {
    package let id: String
    package let filter: SubscriptionFilter
    package let sink: any SubscriptionSink

    private enum Mode {
        /// A `since` replay runs; `through` is the newest live event published meanwhile,
        /// which the replay must reach before the subscription goes live.
        case replaying(through: UInt64)
        case live
        case closed
    }

    /// What became of an event the replay offered.
    package enum ReplayOffer {
        case sent
        /// The sink has no room now: wait for it, then offer the event again.
        case full
        /// The subscription closed: the replay stops.
        case ended
    }

    /// What the replay does once it has sent everything through a `seq`.
    package enum CatchUp: Equatable {
        case live
        /// Live events arrived meanwhile: read the journal through this `seq`, then ask again.
        case readThrough(UInt64)
        case ended
    }

    private let mode: Mutex<Mode>
    /// Counts the subscriptions that overflowed.
    private let overflows: Counter

    init(
        id: String, filter: SubscriptionFilter, sink: any SubscriptionSink, replaying: Bool,
        overflows: Counter = ScanMetrics.none.subscriptionOverflows
    ) {
        self.overflows = overflows
        self.id = id
        self.filter = filter
        self.sink = sink
        self.mode = Mutex(replaying ? .replaying(through: 0) : .live)
    }

    /// A live event, in `seq` order (the publisher calls this from one place at a time).
    func deliver(_ event: JournaledEvent) {
        let overflowed: Bool = mode.withLock { mode in
            switch mode {
            case .replaying(let through):
                mode = .replaying(through: max(through, event.seq))
                return false
            case .live:
                if sink.offer(event, for: self) { return false }
                mode = .closed
                return true
            case .closed:
                return false
            }
        }
        if overflowed {
            overflows.increment()
            sink.overflowed(self, dropped: 1)
        }
    }

    /// A replayed event. Offered under the subscription's lock, so none can follow its
    /// close (an unsubscribe or an overflow).
    package func offerReplayed(_ event: JournaledEvent) -> ReplayOffer {
        mode.withLock { mode in
            guard case .replaying = mode else { return .ended }
            return sink.offerReplayed(event, for: self) ? .sent : .full
        }
    }

    /// Offers a replayed event until the sink takes it, waiting for room meanwhile; false
    /// once the subscription ended. Throws when the sink's client is gone.
    package func sendReplayed(_ event: JournaledEvent) async throws -> Bool {
        while true {
            switch offerReplayed(event) {
            case .sent: return true
            case .ended: return false
            case .full: try await sink.waitForRoom(for: self)
            }
        }
    }

    /// The replay sent every matching event through `seq`: the subscription goes live,
    /// unless live events were published after `seq` meanwhile.
    package func catchUp(through seq: UInt64) -> CatchUp {
        mode.withLock { mode in
            guard case .replaying(let through) = mode else { return .ended }
            guard through <= seq else { return .readThrough(through) }
            mode = .live
            return .live
        }
    }

    func notify(_ notice: SubscriptionNotice) {
        let overflowed = mode.withLock { mode -> Bool in
            if case .closed = mode { return false }
            if sink.notify(notice, for: self) { return false }
            mode = .closed
            return true
        }
        if overflowed {
            overflows.increment()
            sink.overflowed(self, dropped: 0)
        }
    }

    /// The daemon took back the memory of `dropped` queued events: the subscription overflows
    /// and closes, as if its queue had filled (`Outbox.shed`).
    package func overflow(dropped: Int) {
        let open = mode.withLock { mode -> Bool in
            if case .closed = mode { return false }
            mode = .closed
            return true
        }
        guard open else { return }
        overflows.increment()
        sink.overflowed(self, dropped: dropped)
    }

    /// Ends the subscription: nothing more is delivered.
    package func close() {
        mode.withLock { $0 = .closed }
    }

    /// Still replaying: neither live yet, nor closed.
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
