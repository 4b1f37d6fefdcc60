import ScanBridgeModel
import Synchronization

/// Fans committed events and device notices out to the subscriptions that match them.
///
/// `publish(_:)` is called by the journal's single writer, one committed batch at a time,
/// so every subscription sees events in `seq` order. Delivery never blocks: each
/// subscriber has its own bounded queue, so a stalled client never slows the others.
package final class Publisher: Sendable {
    private struct State {
        var subscriptions: [ObjectIdentifier: Subscription] = [:]
        var lastSeq: UInt64
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

    package var subscriptionCount: Int { state.withLock { $0.subscriptions.count } }

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
        id: String, filter: SubscriptionFilter, sink: any SubscriptionSink, replaying: Bool
    ) -> (subscription: Subscription, head: UInt64) {
        let subscription = Subscription(
            id: id, filter: filter, sink: sink, replaying: replaying, overflows: metrics.subscriptionOverflows)
        let head = state.withLock { state in
            state.subscriptions[ObjectIdentifier(subscription)] = subscription
            return state.lastSeq
        }
        return (subscription, head)
    }

    package func remove(_ subscription: Subscription) {
        subscription.close()
        _ = state.withLock { $0.subscriptions.removeValue(forKey: ObjectIdentifier(subscription)) }
    }

    /// Delivers one committed batch, in `seq` order.
    package func publish(_ events: [JournaledEvent]) {
        guard let last = events.last else { return }
        let subscriptions = state.withLock { state in
            state.lastSeq = last.seq
            metrics.journalSeq.set(last.seq)
            return Array(state.subscriptions.values)
        }
        for event in events {
            for subscription in subscriptions where subscription.filter.matches(event) {
                subscription.deliver(event)
            }
        }
    }

    /// Tells every subscription interested in the device that it was added, removed or changed.
    package func publish(_ notice: SubscriptionNotice, about device: Device) {
        let subscriptions = state.withLock { Array($0.subscriptions.values) }
        for subscription in subscriptions where subscription.filter.matches(device) {
            subscription.notify(notice)
        }
    }
}
