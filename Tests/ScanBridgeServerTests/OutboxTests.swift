import Foundation
import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeTesting
import Synchronization
import Testing

@testable import ScanBridgeServer

func journaled(_ seq: UInt64, kind: DeviceKind = .barcode, device: String = "mock:barcode-1") -> JournaledEvent {
    JournaledEvent(seq: seq, kind: kind, device: device, json: Array("{\"seq\":\(seq)}".utf8))
}

/// What the writer would put on the wire, one string per item.
func describe(_ taken: Outbox.Taken) -> [String] {
    describe(taken.items)
}

func describe(_ items: [Outbox.Item]) -> [String] {
    items.map { item in
        switch item {
        case .message(let bytes): String(decoding: bytes, as: UTF8.self)
        case .scan(let event, let prefix): String(decoding: prefix + event.json + Outbox.scanSuffix, as: UTF8.self)
        }
    }
}

func scanLine(_ seq: UInt64, subscription: String) -> String {
    #"{"jsonrpc":"2.0","method":"scan","params":{"subscription":"\#(subscription)","event":{"seq":\#(seq)}}}"#
}

/// A flag a task sets, for tests to look at.
final class Flag: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}

final class Counter: Sendable {
    private let value = Mutex(0)
    func add(_ n: Int) { value.withLock { $0 += n } }
    var count: Int { value.withLock { $0 } }
}

@Suite("Outbox")
final class OutboxTests: Sendable {
    let publisher = Publisher()
    /// The subscriptions a test made, forgotten when it ends, as a closing connection forgets
    /// its own: an outbox and its subscriptions hold each other until then (LeakSanitizer).
    private let subscribed = Mutex<[(Outbox, Subscription)]>([])

    deinit {
        for (outbox, subscription) in subscribed.withLock({ $0 }) {
            publisher.remove(subscription)
            outbox.forget(subscription, droppingQueued: true)
        }
    }

    func subscribe(
        _ outbox: Outbox, id: String = "s1", filter: SubscriptionFilter = .all, replaying: Bool = false
    ) -> Subscription {
        let subscription = publisher.subscribe(id: id, filter: filter, sink: outbox, replaying: replaying).subscription
        subscribed.withLock { $0.append((outbox, subscription)) }
        return subscription
    }

    @Test("messages come out in the order they went in")
    func ordering() async {
        let outbox = Outbox(subscriptionCapacity: 10, responseCapacity: 10, onReady: {})
        let subscription = subscribe(outbox)
        outbox.enqueue(Array("a".utf8))
        #expect(outbox.offer(journaled(1), for: subscription))
        outbox.enqueue(Array("b".utf8))
        #expect(outbox.notify(.gap(from: 1, to: 2), for: subscription))
        #expect(
            describe(outbox.take()) == [
                "a", scanLine(1, subscription: "s1"), "b",
                #"{"jsonrpc":"2.0","method":"events.gap","params":{"subscription":"s1","from":1,"to":2}}"#,
            ])
        outbox.enqueue(Array("c".utf8))
        #expect(describe(outbox.take()) == ["c"])
    }

    @Test("onReady is called once per batch: on the first message after the queue was emptied")
    func readySignal() {
        let signals = Counter()
        let outbox = Outbox(subscriptionCapacity: 10, responseCapacity: 10, onReady: { signals.add(1) })
        outbox.enqueue(Array("a".utf8))
        outbox.enqueue(Array("b".utf8))
        #expect(signals.count == 1)
        #expect(describe(outbox.take()) == ["a", "b"])
        #expect(outbox.take().items.isEmpty)
        outbox.enqueue(Array("c".utf8))
        #expect(signals.count == 2)
    }

    @Test("take stops near maxBytes and leaves the rest queued, still signalled")
    func takeBudget() {
        let signals = Counter()
        let outbox = Outbox(subscriptionCapacity: 10, responseCapacity: 10, onReady: { signals.add(1) })
        for text in ["aaaa", "bbbb", "cccc"] { outbox.enqueue(Array(text.utf8)) }
        let first = outbox.take(maxBytes: 6)
        #expect(describe(first) == ["aaaa", "bbbb"])
        #expect(first.bytes == 10, "each line's bytes and its newline")
        #expect(first.more, "cccc is still queued: the flusher must take again")
        outbox.enqueue(Array("dddd".utf8))
        #expect(signals.count == 1, "the flusher still owes a take: no new signal")
        let second = outbox.take()
        #expect(describe(second) == ["cccc", "dddd"])
        #expect(!second.more)
    }

    @Test("each subscription has its own capacity; take() frees room")
    func capacity() async {
        let outbox = Outbox(subscriptionCapacity: 2, responseCapacity: 10, onReady: {})
        let first = subscribe(outbox, id: "s1")
        let second = subscribe(outbox, id: "s2")
        #expect(outbox.offer(journaled(1), for: first))
        #expect(outbox.offer(journaled(2), for: first))
        #expect(!outbox.offer(journaled(3), for: first))
        // Responses and other subscriptions are not held back by a full subscription.
        outbox.enqueue(Array("response".utf8))
        #expect(outbox.offer(journaled(3), for: second))
        #expect(
            describe(outbox.take()) == [
                scanLine(1, subscription: "s1"), scanLine(2, subscription: "s1"), "response", scanLine(3, subscription: "s2"),
            ])
        #expect(outbox.offer(journaled(3), for: first))
        #expect(describe(outbox.take()) == [scanLine(3, subscription: "s1")])
    }

    @Test("a publisher overflowing the outbox queues one overflow after what was queued, and the subscription closes at once")
    func overflowThroughPublisher() async {
        let outbox = Outbox(subscriptionCapacity: 2, responseCapacity: 10, onReady: {})
        let closed = Counter()
        outbox.whenOverflowed { _ in closed.add(1) }
        let subscription = subscribe(outbox)
        publisher.publish((1...5).map { journaled($0) })
        #expect(subscription.isClosed)
        #expect(closed.count == 1, "the connection hears of it before the client reads anything")
        #expect(
            describe(outbox.take()) == [
                scanLine(1, subscription: "s1"), scanLine(2, subscription: "s1"),
                #"{"jsonrpc":"2.0","method":"events.overflow","params":{"subscription":"s1","dropped":1}}"#,
            ])
    }

    @Test("the bytes queued are bounded: past the bound an event overflows its subscription, answers still go")
    func byteBound() async {
        // Each scan line of these is 83 bytes with its newline.
        let outbox = Outbox(subscriptionCapacity: 100, responseCapacity: 10, byteCapacity: 200, onReady: {})
        let subscription = subscribe(outbox)
        publisher.publish((1...3).map { journaled($0) })
        #expect(subscription.isClosed, "the third line would pass 200 bytes")
        #expect(!outbox.acceptsRequests, "the overflow notice took it past the bound: no more requests are read")
        outbox.enqueue(Array("an answer is never dropped".utf8))
        let lines = describe(outbox.take())
        #expect(lines.first == scanLine(1, subscription: "s1"))
        #expect(lines.count == 4)
        #expect(lines.last == "an answer is never dropped")
        #expect(outbox.acceptsRequests)
        #expect(outbox.bytesQueued == 0)
    }

    @Test("a message larger than the whole bound still goes when nothing else waits")
    func loneLargeMessage() {
        let outbox = Outbox(subscriptionCapacity: 100, responseCapacity: 10, byteCapacity: 10, onReady: {})
        let subscription = subscribe(outbox)
        #expect(outbox.offer(journaled(1), for: subscription))
        #expect(!outbox.offer(journaled(2), for: subscription))
    }

    @Test("forgetting a subscription with droppingQueued drops its queued messages only, and wakes its replay")
    func forgetDropsQueued() async throws {
        let outbox = Outbox(subscriptionCapacity: 1, responseCapacity: 10, onReady: {})
        let first = subscribe(outbox, id: "s1", replaying: true)
        let second = subscribe(outbox, id: "s2")
        #expect(outbox.offer(journaled(1), for: first))
        outbox.enqueue(Array("answer".utf8))
        #expect(outbox.notify(.gap(from: 1, to: 2), for: first) == false, "s1's queue is full")
        #expect(outbox.offer(journaled(2), for: second))
        let replay = Task { try await first.sendReplayed(journaled(3)) }
        for _ in 0..<100 { await Task.yield() }
        publisher.remove(first)
        outbox.forget(first, droppingQueued: true)
        #expect(try await within("the replay wakes and ends") { try await replay.value } == false)
        #expect(describe(outbox.take()) == ["answer", scanLine(2, subscription: "s2")])
        #expect(outbox.bytesQueued == 0)
    }

    @Test("device notices carry the device")
    func deviceNotice() async throws {
        let outbox = Outbox(subscriptionCapacity: 2, responseCapacity: 10, onReady: {})
        let subscription = subscribe(outbox)
        let device = Device(id: "mock:till", driver: "mock", kind: .barcode, name: "Till")
        #expect(outbox.notify(.deviceRemoved(device), for: subscription))
        let line = try #require(describe(outbox.take()).first)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["method"] as? String == "device.removed")
        let params = try #require(object["params"] as? [String: Any])
        #expect(params["subscription"] as? String == "s1")
        #expect((params["device"] as? [String: Any])?["id"] as? String == "mock:till")
    }

    @Test("finish() keeps what is queued for the writer and refuses new messages; drained() waits for it")
    func finishDrains() async throws {
        let outbox = Outbox(subscriptionCapacity: 2, responseCapacity: 10, onReady: {})
        outbox.enqueue(Array("last words".utf8))
        outbox.finish()
        outbox.enqueue(Array("too late".utf8))
        let drained = Flag()
        let waiter = Task {
            await outbox.drained()
            drained.set()
        }
        for _ in 0..<100 { await Task.yield() }
        #expect(!drained.isSet)
        #expect(describe(outbox.take()) == ["last words"])
        try await within("drained() to return once the last words were taken") { await waiter.value }
        #expect(drained.isSet)
        #expect(outbox.take().items.isEmpty)
    }

    @Test("abandon() releases drained() when the socket is gone")
    func abandonReleasesDrain() async throws {
        let outbox = Outbox(subscriptionCapacity: 2, responseCapacity: 10, onReady: {})
        outbox.enqueue(Array("never read".utf8))
        outbox.finish()
        let waiter = Task { await outbox.drained() }
        outbox.abandon()
        try await within("drained() to return after abandon()") { await waiter.value }
        #expect(outbox.take().items.isEmpty)
    }

    @Test("after finish, offers are swallowed and waiting for room throws")
    func afterFinish() async {
        let outbox = Outbox(subscriptionCapacity: 1, responseCapacity: 10, onReady: {})
        let subscription = subscribe(outbox)
        outbox.finish()
        #expect(outbox.offer(journaled(1), for: subscription))
        await #expect(throws: Outbox.Closed.self) { try await outbox.waitForRoom(for: subscription) }
        #expect(outbox.take().items.isEmpty)
    }

    @Test("a replayed event waits for room and goes after take()")
    func sendWaitsForRoom() async throws {
        let outbox = Outbox(subscriptionCapacity: 1, responseCapacity: 10, onReady: {})
        let subscription = subscribe(outbox, replaying: true)
        #expect(outbox.offer(journaled(1), for: subscription))
        let sent = Flag()
        let sender = Task {
            _ = try await subscription.sendReplayed(journaled(2))
            sent.set()
        }
        for _ in 0..<100 { await Task.yield() }
        #expect(!sent.isSet, "a replay must not pass a full queue")
        #expect(describe(outbox.take()) == [scanLine(1, subscription: "s1")])
        try await within("the waiting replay to resume after take()") { try await sender.value }
        #expect(sent.isSet)
        #expect(describe(outbox.take()) == [scanLine(2, subscription: "s1")])
    }

    /// A replay's wait for room, begun, and the flag it sets once it has some.
    func waitingForRoom(_ outbox: Outbox, _ subscription: Subscription) async -> (Flag, Task<Void, any Error>) {
        let sent = Flag()
        let waiting = Task {
            try await outbox.waitForRoom(for: subscription)
            sent.set()
        }
        for _ in 0..<100 { await Task.yield() }
        return (sent, waiting)
    }

    @Test("a replay keeps at most its window waiting, far less than live events may")
    func replayWindow() async throws {
        let outbox = Outbox(subscriptionCapacity: 100_000, responseCapacity: 10, onReady: {})
        let subscription = subscribe(outbox, replaying: true)
        let event = JournaledEvent(seq: 1, kind: .barcode, device: "d", json: [UInt8](repeating: 0x20, count: 1000))
        var offered = 0
        while subscription.offerReplayed(event) == .sent { offered += 1 }
        #expect(outbox.bytesQueued >= Outbox.replayWindow && outbox.bytesQueued < Outbox.replayWindow + 2000)
        let (sent, waiting) = await waitingForRoom(outbox, subscription)
        #expect(!sent.isSet, "a full window waits for the client")
        _ = outbox.take(maxBytes: 64 << 10)
        try await within("room after take()") { try await waiting.value }
        #expect(outbox.offerReplayed(event, for: subscription), "room again once the client took some")
    }

    @Test("a replay waits while the daemon's budget is spent, and makes no other outbox shed")
    func replayWaitsForTheBudget() async throws {
        let budget = BufferBudget(capacity: 64 << 10)
        let live = Outbox(subscriptionCapacity: 100_000, responseCapacity: 10, budget: budget, onReady: {})
        let liveSubscription = subscribe(live, id: "live")
        let event = JournaledEvent(seq: 1, kind: .barcode, device: "d", json: [UInt8](repeating: 0x20, count: 1000))
        while budget.total + 2000 < budget.capacity { #expect(live.offer(event, for: liveSubscription)) }
        let replay = Outbox(subscriptionCapacity: 100_000, responseCapacity: 10, budget: budget, onReady: {})
        let replaying = subscribe(replay, id: "replay", replaying: true)
        #expect(replay.offerReplayed(event, for: replaying), "a lone item always goes")
        while !budget.isSpent { #expect(replay.offerReplayed(event, for: replaying), "the budget's last bytes") }
        #expect(!replay.offerReplayed(event, for: replaying), "the budget is spent: the replay waits")
        let (sent, waiting) = await waitingForRoom(replay, replaying)
        #expect(!sent.isSet, "no room at once, so the replay does not spin")
        #expect(!describe(replay.take()).isEmpty)
        try await within("room once the replay's client took its events") { try await waiting.value }
        #expect(live.bytesQueued > 60 << 10, "the live subscriber kept its events")
    }

    @Test("a waiting replay throws when the outbox finishes")
    func sendReleasedByFinish() async {
        let outbox = Outbox(subscriptionCapacity: 1, responseCapacity: 10, onReady: {})
        let subscription = subscribe(outbox, replaying: true)
        #expect(outbox.offer(journaled(1), for: subscription))
        let sender = Task { try await subscription.sendReplayed(journaled(2)) }
        for _ in 0..<100 { await Task.yield() }
        outbox.finish()
        await #expect(throws: Outbox.Closed.self) { try await within("the waiting replay to throw") { try await sender.value } }
    }

    @Test("a waiting replay throws when cancelled")
    func sendCancelled() async {
        let outbox = Outbox(subscriptionCapacity: 1, responseCapacity: 10, onReady: {})
        let subscription = subscribe(outbox, replaying: true)
        #expect(outbox.offer(journaled(1), for: subscription))
        let sender = Task { try await subscription.sendReplayed(journaled(2)) }
        for _ in 0..<100 { await Task.yield() }
        sender.cancel()
        await #expect(throws: CancellationError.self) {
            try await within("the waiting replay to throw") { try await sender.value }
        }
    }

    @Test("whenAcceptingRequests calls back once answers queued fall under the capacity")
    func responseRoom() {
        let outbox = Outbox(subscriptionCapacity: 1, responseCapacity: 2, onReady: {})
        let calls = Counter()
        outbox.whenAcceptingRequests { calls.add(1) }
        #expect(calls.count == 1, "room now: called at once")
        outbox.enqueue(Array("1".utf8))
        outbox.enqueue(Array("2".utf8))
        #expect(!outbox.acceptsRequests)
        outbox.whenAcceptingRequests { calls.add(1) }
        #expect(calls.count == 1)
        #expect(describe(outbox.take()) == ["1", "2"])
        #expect(calls.count == 2)
    }

    @Test("a replaying sender and a writer running flat out lose nothing", arguments: [1, 3])
    func senderAndWriter(capacity: Int) async throws {
        let outbox = Outbox(subscriptionCapacity: capacity, responseCapacity: 10, onReady: {})
        let subscription = subscribe(outbox, replaying: true)
        let total = 20_000
        let received = Counter()
        let sender = Task {
            for seq in 1...UInt64(total) { _ = try await subscription.sendReplayed(journaled(seq)) }
        }
        let stop = Flag()
        let writer = Task {
            var expected: UInt64 = 1
            var inOrder = true
            while !stop.isSet {
                let items = outbox.take().items
                if items.isEmpty {
                    await Task.yield()
                    continue
                }
                for line in describe(items) {
                    inOrder = inOrder && line == scanLine(expected, subscription: "s1")
                    expected += 1
                }
                received.add(items.count)
            }
            return inOrder
        }
        defer {  // when the wait fails too: no writer left spinning
            stop.set()
            sender.cancel()
            writer.cancel()
        }
        // A deadline on progress, not on the whole run: the hand-offs share the cooperative
        // pool with every other suite, and only a sender never woken stops them for good.
        var taken = -1
        var lastTaken = ContinuousClock.now
        while received.count < total {
            if received.count != taken { (taken, lastTaken) = (received.count, .now) }
            guard ContinuousClock.now - lastTaken < .seconds(20) else {
                Issue.record(
                    "the writer took \(taken) of \(total) events, then none for 20 s: a sender waiting for room was never woken")
                return
            }
            try await Task.sleep(for: .milliseconds(5))
        }
        // Every event was taken, so the sender is returning. It must return before the
        // outbox finishes: `send` throws `Closed` when it finished meanwhile.
        try await sender.value
        stop.set()
        outbox.finish()
        #expect(await writer.value)
    }
}
