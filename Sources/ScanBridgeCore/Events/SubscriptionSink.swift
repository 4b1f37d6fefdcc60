package import ScanBridgeModel

/// Where a subscription's messages go: a client connection's outgoing queue.
///
/// The sink owns the bounded queue; the subscription decides what to put in it.
package protocol SubscriptionSink: AnyObject, Sendable {
    /// Queues an event. Must not block; false when the subscription's queue is full.
    func offer(_ event: JournaledEvent, for subscription: Subscription) -> Bool
    /// Queues an event a replay read from the journal. Must not block; false when the replay
    /// is to wait for room. A replay can always read again what it could not queue, so a sink
    /// may hold far fewer of them than of live events, which it cannot ask for again.
    func offerReplayed(_ event: JournaledEvent, for subscription: Subscription) -> Bool
    /// Returns once an `offerReplayed` for the subscription may succeed, or something else
    /// changed (the caller offers again); throws once the client is gone.
    func waitForRoom(for subscription: Subscription) async throws
    /// Queues a notice that is not an event (device change, gap); false when there is no room.
    func notify(_ notice: SubscriptionNotice, for subscription: Subscription) -> Bool
    /// The subscription overflowed and is closed, having missed `dropped` events. The sink
    /// sends `events.overflow` once, after what is already queued.
    func overflowed(_ subscription: Subscription, dropped: Int)
}

extension SubscriptionSink {
    /// A sink that bounds replays as it bounds live events.
    package func offerReplayed(_ event: JournaledEvent, for subscription: Subscription) -> Bool {
        offer(event, for: subscription)
    }
}

/// The notifications of a subscription other than scans.
package enum SubscriptionNotice: Sendable, Hashable {
    case deviceAdded(Device)
    case deviceRemoved(Device)
    case deviceChanged(Device)
    /// Events `from...to` are older than the journal keeps.
    case gap(from: UInt64, to: UInt64)
}
