import ScanBridgeCore
import ScanBridgeRPC

/// A reader's subscriptions deliver through this: each event goes on as its reader view, live
/// and in replays alike, and everything else as is. Operators and admins subscribe on the
/// outbox itself, so their events keep the path that sends the journaled bytes untouched.
final class ReaderSink: SubscriptionSink {
    let sink: any SubscriptionSink

    init(_ sink: any SubscriptionSink) {
        self.sink = sink
    }

    func offer(_ event: JournaledEvent, for subscription: Subscription) -> Bool {
        sink.offer(event.readerView, for: subscription)
    }

    func offerReplayed(_ event: JournaledEvent, for subscription: Subscription) -> Bool {
        sink.offerReplayed(event.readerView, for: subscription)
    }

    func waitForRoom(for subscription: Subscription) async throws {
        try await sink.waitForRoom(for: subscription)
    }

    func notify(_ notice: SubscriptionNotice, for subscription: Subscription) -> Bool {
        sink.notify(notice, for: subscription)
    }

    func overflowed(_ subscription: Subscription, dropped: Int) {
        sink.overflowed(subscription, dropped: dropped)
    }
}

extension Connection {
    /// Where this connection's subscriptions deliver, as its role may see events.
    var eventSink: any SubscriptionSink {
        role.seesWholeEvents ? outbox : ReaderSink(outbox)
    }

    /// An event's JSON, as this connection's role may see it.
    func json(of event: JournaledEvent) -> [UInt8] {
        role.seesWholeEvents ? event.json : event.readerView.json
    }
}
