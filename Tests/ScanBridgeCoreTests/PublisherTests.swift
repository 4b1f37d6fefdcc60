import ScanBridgeCore
import ScanBridgeModel
import Synchronization
import Testing

@Suite("Publisher and Subscription")
struct PublisherTests {
    @Test("live events reach a subscription in order")
    func liveInOrder() {
        let publisher = Publisher()
        let sink = RecordingSink()
        let (subscription, head) = publisher.subscribe(id: "s1", filter: .all, sink: sink, replaying: false)
        #expect(head == 0)
        #expect(subscription.id == "s1")
        publisher.publish([journaled(1), journaled(2)])
        publisher.publish([])
        publisher.publish([journaled(3)])
        #expect(sink.eventSeqs == [1, 2, 3])
        #expect(publisher.lastSeq == 3)
        #expect(sink.overflows.isEmpty)
    }

    @Test("the Unix socket's subscribers get each event before the gateway's")
    func localFirst() {
        let publisher = Publisher()
        let order = OrderLog()
        for index in 0..<20 {
            let tier: Publisher.Tier = index % 2 == 0 ? .remote : .local
            _ = publisher.subscribe(
                id: "s\(index)", filter: .all, sink: OrderedSink(tier: tier, log: order), replaying: false, tier: tier)
        }
        publisher.publish([journaled(1)])
        #expect(order.tiers == Array(repeating: .local, count: 10) + Array(repeating: .remote, count: 10))
        publisher.remove(publisher.subscribe(id: "gone", filter: .all, sink: RecordingSink(), replaying: false).subscription)
        #expect(publisher.subscriptionCount == 20)
    }

    @Test("the head is the last published seq")
    func head() {
        let publisher = Publisher(lastSeq: 7)
        #expect(publisher.subscribe(id: "s1", filter: .all, sink: RecordingSink(), replaying: false).head == 7)
        publisher.publish([journaled(8), journaled(9)])
        #expect(publisher.subscribe(id: "s2", filter: .all, sink: RecordingSink(), replaying: false).head == 9)
        publisher.resume(after: 5)  // never goes back
        #expect(publisher.lastSeq == 9)
        publisher.resume(after: 20)
        #expect(publisher.lastSeq == 20)
        #expect(publisher.subscriptionCount == 2)
    }

    @Test("subscriptions only get the kinds and devices they asked for")
    func filters() {
        let publisher = Publisher()
        let nfc = RecordingSink()
        let till = RecordingSink()
        let both = RecordingSink()
        let all = RecordingSink()
        _ = publisher.subscribe(id: "nfc", filter: SubscriptionFilter(kinds: [.nfc]), sink: nfc, replaying: false)
        _ = publisher.subscribe(id: "till", filter: SubscriptionFilter(devices: ["mock:till"]), sink: till, replaying: false)
        _ = publisher.subscribe(
            id: "both", filter: SubscriptionFilter(kinds: [.barcode], devices: ["mock:till"]), sink: both, replaying: false)
        _ = publisher.subscribe(id: "all", filter: .all, sink: all, replaying: false)
        publisher.publish([
            journaled(1, kind: .nfc, device: "mock:nfc-1"),
            journaled(2, kind: .barcode, device: "mock:till"),
            journaled(3, kind: .qr, device: "mock:till"),
            journaled(4, kind: .barcode, device: "mock:barcode-1"),
            journaled(5, kind: .nfc, device: "mock:till"),
        ])
        #expect(nfc.eventSeqs == [1, 5])
        #expect(till.eventSeqs == [2, 3, 5])
        #expect(both.eventSeqs == [2])
        #expect(all.eventSeqs == [1, 2, 3, 4, 5])
    }

    @Test("device notices respect the filter too")
    func noticeFilter() {
        let publisher = Publisher()
        let nfc = RecordingSink()
        let all = RecordingSink()
        _ = publisher.subscribe(id: "nfc", filter: SubscriptionFilter(kinds: [.nfc]), sink: nfc, replaying: false)
        _ = publisher.subscribe(id: "all", filter: .all, sink: all, replaying: false)
        let scanner = device()
        publisher.publish(.deviceAdded(scanner), about: scanner)
        #expect(nfc.notices.isEmpty)
        #expect(all.notices == [.deviceAdded(scanner)])
    }

    @Test("a replaying subscription takes no live event: its replay catches up through the newest published")
    func replayCatchesUp() {
        let publisher = Publisher(lastSeq: 5)
        let sink = RecordingSink()
        let (subscription, head) = publisher.subscribe(id: "s1", filter: .all, sink: sink, replaying: true)
        #expect(head == 5)
        publisher.publish([journaled(6), journaled(7)])
        publisher.publish([journaled(8)])
        #expect(sink.messages.isEmpty)
        #expect(subscription.catchUp(through: 5) == .readThrough(8))
        #expect(subscription.catchUp(through: 8) == .live)
        publisher.publish([journaled(9)])
        #expect(sink.eventSeqs == [9])
        #expect(subscription.catchUp(through: 9) == .ended, "no effect once live")
        #expect(sink.eventSeqs == [9])
    }

    @Test("a replay holds no memory for live events, however many are published meanwhile")
    func replayHoldsNothing() {
        let publisher = Publisher()
        let sink = RecordingSink(capacity: 1)
        let (subscription, _) = publisher.subscribe(id: "s1", filter: .all, sink: sink, replaying: true)
        for seq in UInt64(1)...10_000 { publisher.publish([journaled(seq)]) }
        #expect(sink.messages.isEmpty)
        #expect(sink.overflows.isEmpty)
        #expect(subscription.catchUp(through: 0) == .readThrough(10_000))
    }

    @Test("a replayed event finds a full sink: the replay waits, nothing overflows; once closed it ends")
    func replayedOffer() {
        let publisher = Publisher()
        let sink = RecordingSink(capacity: 1)
        let (subscription, _) = publisher.subscribe(id: "s1", filter: .all, sink: sink, replaying: true)
        #expect(subscription.offerReplayed(journaled(1)) == .sent)
        #expect(subscription.offerReplayed(journaled(2)) == .full)
        #expect(sink.overflows.isEmpty)
        publisher.remove(subscription)
        sink.drain()
        #expect(subscription.offerReplayed(journaled(2)) == .ended)
        #expect(sink.eventSeqs == [1])
    }

    @Test("a full queue overflows once, with what it dropped, and the subscription closes at once")
    func liveOverflow() {
        let publisher = Publisher()
        let sink = RecordingSink(capacity: 2)
        let (subscription, _) = publisher.subscribe(id: "s1", filter: .all, sink: sink, replaying: false)
        publisher.publish([journaled(1), journaled(2)])
        #expect(sink.overflows.isEmpty)
        publisher.publish([journaled(3), journaled(4)])
        #expect(sink.overflows == [1])
        #expect(subscription.isClosed)
        sink.drain()  // room again, but the subscription has closed
        publisher.publish([journaled(5)])
        #expect(sink.overflows == [1])
        #expect(sink.eventSeqs == [1, 2])
    }

    @Test("a notice with no room overflows the subscription too")
    func noticeOverflow() {
        let publisher = Publisher()
        let sink = RecordingSink(acceptsNotices: false)
        let (subscription, _) = publisher.subscribe(id: "s1", filter: .all, sink: sink, replaying: false)
        let scanner = device()
        publisher.publish(.deviceAdded(scanner), about: scanner)
        #expect(sink.overflows == [0])
        #expect(subscription.isClosed)
        publisher.publish(.deviceRemoved(scanner), about: scanner)
        #expect(sink.overflows == [0])
    }

    @Test("a subscription that drains keeps up")
    func drainKeepsUp() {
        let publisher = Publisher()
        let sink = RecordingSink(capacity: 2)
        _ = publisher.subscribe(id: "s1", filter: .all, sink: sink, replaying: false)
        for seq in UInt64(1)...20 {
            publisher.publish([journaled(seq)])
            if seq % 2 == 0 { sink.drain() }
        }
        #expect(sink.eventSeqs == Array(1...20))
        #expect(sink.overflows.isEmpty)
    }

    @Test("a removed subscription gets nothing more")
    func remove() {
        let publisher = Publisher()
        let sink = RecordingSink()
        let (subscription, _) = publisher.subscribe(id: "s1", filter: .all, sink: sink, replaying: false)
        publisher.publish([journaled(1)])
        publisher.remove(subscription)
        #expect(subscription.isClosed)
        #expect(publisher.subscriptionCount == 0)
        publisher.publish([journaled(2)])
        let scanner = device()
        publisher.publish(.deviceAdded(scanner), about: scanner)
        #expect(sink.messages == [.event(1)])
    }

    @Test("a closed subscription gets no notices")
    func closedGetsNoNotices() {
        let publisher = Publisher()
        let sink = RecordingSink()
        let (subscription, _) = publisher.subscribe(id: "s1", filter: .all, sink: sink, replaying: false)
        subscription.close()
        let scanner = device()
        publisher.publish(.deviceAdded(scanner), about: scanner)
        publisher.publish([journaled(1)])
        #expect(sink.messages.isEmpty)
    }

    @Test("publishing from many tasks reaches every subscriber in the publish order")
    func concurrentSubscribers() async {
        let publisher = Publisher()
        let sinks = (0..<8).map { _ in RecordingSink() }
        for (index, sink) in sinks.enumerated() {
            _ = publisher.subscribe(id: "s\(index)", filter: .all, sink: sink, replaying: false)
        }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for seq in UInt64(1)...500 { publisher.publish([journaled(seq)]) }
            }
            for index in 0..<4 {
                group.addTask {
                    let (subscription, _) = publisher.subscribe(
                        id: "extra\(index)", filter: .all, sink: RecordingSink(), replaying: false)
                    publisher.remove(subscription)
                }
            }
        }
        for sink in sinks { #expect(sink.eventSeqs == Array(1...500)) }
    }
}

/// The tiers of the sinks that got an event, in the order they got it.
private final class OrderLog: Sendable {
    private let log = Mutex<[Publisher.Tier]>([])
    var tiers: [Publisher.Tier] { log.withLock { $0 } }
    func append(_ tier: Publisher.Tier) { log.withLock { $0.append(tier) } }
}

private final class OrderedSink: SubscriptionSink, Sendable {
    let tier: Publisher.Tier
    let log: OrderLog

    init(tier: Publisher.Tier, log: OrderLog) {
        self.tier = tier
        self.log = log
    }

    func offer(_ event: JournaledEvent, for subscription: Subscription) -> Bool {
        log.append(tier)
        return true
    }

    func waitForRoom(for subscription: Subscription) async throws {}
    func notify(_ notice: SubscriptionNotice, for subscription: Subscription) -> Bool { true }
    func overflowed(_ subscription: Subscription, dropped: Int) {}
}
