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
        case .overflow(let subscription): "overflow \(subscription.id)"
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
struct OutboxTests {
    let publisher = Publisher()

    func subscribe(_ outbox: Outbox, id: String = "s1", filter: SubscriptionFilter = .all) -> Subscription {
        publisher.subscribe(id: id, filter: filter, sink: outbox, replaying: false).subscription
    }

    @Test("messages come out in the order they went in")
    func ordering() async {
        let outbox = Outbox(subscriptionCapacity: 10, responseCapacity: 10, onReady: {})
        let subscription = subscribe(outbox)
        outbox.enqueue(Array("a".utf8))
        #expect(outbox.offer(journaled(1), for: subscription))
        outbox.enqueue(Array("b".utf8))
        outbox.notify(.gap(from: 1, to: 2), for: subscription)
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

    @Test("a publisher overflowing the outbox queues one overflow after what was queued")
    func overflowThroughPublisher() async {
        let outbox = Outbox(subscriptionCapacity: 2, responseCapacity: 10, onReady: {})
        let subscription = subscribe(outbox)
        publisher.publish((1...5).map { journaled($0) })
        #expect(
            describe(outbox.take()) == [
                scanLine(1, subscription: "s1"), scanLine(2, subscription: "s1"), "overflow s1",
            ])
        #expect(subscription.closeAfterOverflow() == 3)
        #expect(
            Outbox.overflowNotification(subscription: "s1", dropped: 3)
                == Array(
                    #"{"jsonrpc":"2.0","method":"events.overflow","params":{"subscription":"s1","dropped":3}}"#.utf8))
    }

    @Test("device notices carry the device")
    func deviceNotice() async throws {
        let outbox = Outbox(subscriptionCapacity: 2, responseCapacity: 10, onReady: {})
        let subscription = subscribe(outbox)
        let device = Device(id: "mock:till", driver: "mock", kind: .barcode, name: "Till")
        outbox.notify(.deviceRemoved(device), for: subscription)
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

    @Test("after finish, offers are swallowed and send throws")
    func afterFinish() async {
        let outbox = Outbox(subscriptionCapacity: 1, responseCapacity: 10, onReady: {})
        let subscription = subscribe(outbox)
        outbox.finish()
        #expect(outbox.offer(journaled(1), for: subscription))
        await #expect(throws: Outbox.Closed.self) { try await outbox.send(journaled(2), for: subscription) }
        #expect(outbox.take().items.isEmpty)
    }

    @Test("send waits for room and resumes after take()")
    func sendWaitsForRoom() async throws {
        let outbox = Outbox(subscriptionCapacity: 1, responseCapacity: 10, onReady: {})
        let subscription = subscribe(outbox)
        #expect(outbox.offer(journaled(1), for: subscription))
        let sent = Flag()
        let sender = Task {
            try await outbox.send(journaled(2), for: subscription)
            sent.set()
        }
        for _ in 0..<100 { await Task.yield() }
        #expect(!sent.isSet, "send must not pass a full queue")
        #expect(describe(outbox.take()) == [scanLine(1, subscription: "s1")])
        try await within("the waiting send to resume after take()") { try await sender.value }
        #expect(sent.isSet)
        #expect(describe(outbox.take()) == [scanLine(2, subscription: "s1")])
    }

    @Test("a waiting send throws when the outbox finishes")
    func sendReleasedByFinish() async {
        let outbox = Outbox(subscriptionCapacity: 1, responseCapacity: 10, onReady: {})
        let subscription = subscribe(outbox)
        #expect(outbox.offer(journaled(1), for: subscription))
        let sender = Task { try await outbox.send(journaled(2), for: subscription) }
        for _ in 0..<100 { await Task.yield() }
        outbox.finish()
        await #expect(throws: Outbox.Closed.self) { try await within("the waiting send to throw") { try await sender.value } }
    }

    @Test("a waiting send throws when cancelled")
    func sendCancelled() async {
        let outbox = Outbox(subscriptionCapacity: 1, responseCapacity: 10, onReady: {})
        let subscription = subscribe(outbox)
        #expect(outbox.offer(journaled(1), for: subscription))
        let sender = Task { try await outbox.send(journaled(2), for: subscription) }
        for _ in 0..<100 { await Task.yield() }
        sender.cancel()
        await #expect(throws: CancellationError.self) { try await within("the waiting send to throw") { try await sender.value } }
    }

    @Test("whenResponseRoom calls back once answers queued fall under the capacity")
    func responseRoom() {
        let outbox = Outbox(subscriptionCapacity: 1, responseCapacity: 2, onReady: {})
        let calls = Counter()
        outbox.whenResponseRoom { calls.add(1) }
        #expect(calls.count == 1, "room now: called at once")
        outbox.enqueue(Array("1".utf8))
        outbox.enqueue(Array("2".utf8))
        #expect(outbox.responsesQueued == 2)
        outbox.whenResponseRoom { calls.add(1) }
        #expect(calls.count == 1)
        #expect(describe(outbox.take()) == ["1", "2"])
        #expect(calls.count == 2)
    }

    @Test("a replaying sender and a writer running flat out lose nothing", arguments: [1, 3])
    func senderAndWriter(capacity: Int) async throws {
        let outbox = Outbox(subscriptionCapacity: capacity, responseCapacity: 10, onReady: {})
        let subscription = subscribe(outbox)
        let total = 20_000
        let received = Counter()
        let sender = Task {
            for seq in 1...UInt64(total) { try await outbox.send(journaled(seq), for: subscription) }
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
        try await waitUntil(
            "the writer to take all \(total) events; it got \(received.count): a sender waiting for room was never woken",
            timeout: .seconds(30)
        ) { received.count == total }
        // Every event was taken, so the sender is returning. It must return before the
        // outbox finishes: `send` throws `Closed` when it finished meanwhile.
        try await sender.value
        stop.set()
        outbox.finish()
        #expect(await writer.value)
    }
}
