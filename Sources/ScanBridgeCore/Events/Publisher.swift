import CoreMetrics
package import ScanBridgeModel
import Synchronization

/// Fans committed events and device notices out to the subscriptions that match them.
///
/// `publish(_:)` is called by the journal's single writer, one committed batch at a time,
/// so every subscription sees events in `seq` order. Delivery never blocks: each
/// subscriber has its own bounded queue, so a stalled client never slows the others.
package final class Publisher: Sendable {
    /// Which subscribers an event reaches first.
    package enum Tier: Sendable, Hashable {
        /// The programs on this box, through the Unix socket: served first, so that however
        /// many browsers the gateway serves, the box's own programs wait for none of them.
        case local
        /// The gateway's subscribers, after the local ones.
        case remote
    }

    private struct State {
        var local: [ObjectIdentifier: Subscription] = [:]
        var remote: [ObjectIdentifier: Subscription] = [:]
        var lastSeq: UInt64

        var all: [Subscription] { Array(local.values) + Array(remote.values) }
    }

    private let state: Mutex<State>
    /// The pipeline's metrics: the journal's head is set here, where commits arrive in order.
    package let metrics: ScanMetrics

    package init(lastSeq: UInt64 = 0, metrics: ScanMetrics = .none) {
        self.state = Mutex(State(lastSeq: lastSeq))
        self.metrics = metrics
        metrics.journalSeq.set(lastSeq)
    }

    /// The `seq` of the last event published.
    package var lastSeq: UInt64 { state.withLock { $0.lastSeq } }

    package var subscriptionCount: Int { state.withLock { $0.local.count + $0.remote.count } }

    /// Starts the published sequence after what a journal already holds.
    package func resume(after seq: UInt64) {
        state.withLock { state in
            state.lastSeq = max(state.lastSeq, seq)
            metrics.journalSeq.set(state.lastSeq)
        }
    }

    /// Registers a subscription. Returns it with the last published `seq`: every later event
    /// reaches it live, or, for a replaying one, is read from the journal by its replay.
    package func subscribe(
        id: String, filter: SubscriptionFilter, sink: any SubscriptionSink, replaying: Bool, tier: Tier = .local
    ) -> (subscription: Subscription, head: UInt64) {
        let subscription = Subscription(
            id: id, filter: filter, sink: sink, replaying: replaying, overflows: metrics.subscriptionOverflows)
        let head = state.withLock { state in
            switch tier {
            case .local: state.local[ObjectIdentifier(subscription)] = subscription
            case .remote: state.remote[ObjectIdentifier(subscription)] = subscription
            }
            return state.lastSeq
        }
        return (subscription, head)
    }

    package func remove(_ subscription: Subscription) {
        subscription.close()
        state.withLock { state in
            state.local[ObjectIdentifier(subscription)] = nil
            state.remote[ObjectIdentifier(subscription)] = nil
        }
    }

    /// Delivers one committed batch, in `seq` order.
    package func publish(_ events: [JournaledEvent]) {
        guard let last = events.last else { return }
        let subscriptions = state.withLock { state in
            state.lastSeq = last.seq
            metrics.journalSeq.set(last.seq)
            return state.all
        }
        for event in events {
            for subscription in subscriptions where subscription.filter.matches(event) {
                subscription.deliver(event)
            }
        }
    }

    /// Tells every subscription interested in the device that it was added, removed or changed.
    package func publish(_ notice: SubscriptionNotice, about device: Device) {
        let subscriptions = state.withLock { $0.all }
        for subscription in subscriptions where subscription.filter.matches(device) {
            subscription.notify(notice)
        }
    }
}
