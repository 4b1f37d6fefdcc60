import ScanBridgeModel

/// Where a subscription's messages go: a client connection's outgoing queue.
///
/// The sink owns the bounded queue; the subscription decides what to put in it.
package protocol SubscriptionSink: AnyObject, Sendable {
    /// Live delivery. Must not block; false when the subscription's queue is full.
    func offer(_ event: JournaledEvent, for subscription: Subscription) -> Bool
    /// Replay delivery: waits until the subscription's queue has room; throws once the client is gone.
    func send(_ event: JournaledEvent, for subscription: Subscription) async throws
    /// A notice that is not an event (device change, gap): rare and small, never dropped.
    func notify(_ notice: SubscriptionNotice, for subscription: Subscription)
    /// The subscription overflowed. The sink sends `events.overflow` once, after what is
    /// already queued, taking the count from `Subscription.closeAfterOverflow()`.
    func overflowed(_ subscription: Subscription)
}

/// The notifications of a subscription other than scans.
package enum SubscriptionNotice: Sendable, Hashable {
    case deviceAdded(Device)
    case deviceRemoved(Device)
    case deviceChanged(Device)
    /// Events `from...to` are older than the journal keeps.
    case gap(from: UInt64, to: UInt64)
}
