import Foundation
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeRPC
import ScanBridgeTesting
import Synchronization
import Testing

/// A client that stops reading costs a bounded queue, never slows the others, and is told
/// how many events it missed so it can catch up with `since`.
@Suite("Backpressure end to end", .heavy, .timeLimit(.minutes(5)))
struct BackpressureTests {
    /// 2,000 in `make test`; `make soak` sets SCANBRIDGE_BACKPRESSURE_SCANS to 10,000.
    static let scans = ProcessInfo.processInfo.environment["SCANBRIDGE_BACKPRESSURE_SCANS"].flatMap(Int.init) ?? 2_000

    @Test func stalledSubscriberNextToAReadingOne() async throws {
        let total = Self.scans
        // A connection bound of 64 KiB, so that the stalled client's queue, its buffer and the
        // kernel's together fill well within the scans injected.
        let daemon = try await startDaemon(
            ["--mock", "barcode:till-1"], config: "server:\n  subscription_queue: 64\n  connection_buffer_bytes: 65536\n")
        let stalled = try await RawConnection.connect(socketPath: daemon.socketPath, reading: false)
        try await stalled.send(#"{"jsonrpc":"2.0","id":1,"method":"events.subscribe"}"#)

        let reader = try await daemon.connect()
        _ = try await reader.call("events.subscribe")
        // The reading subscriber keeps up; should a loaded machine slow it past its queue all
        // the same, it recovers as docs/protocol.md says (resubscribe with `since`), and still
        // must miss nothing.
        let received = Task {
            var seqs = Set<UInt64>()
            for await notification in reader.notifications {
                if notification.method == "events.overflow" {
                    var since: UInt64 = 0
                    while seqs.contains(since + 1) { since += 1 }
                    _ = try? await reader.call("events.subscribe", ["since": .int(Int64(since))])
                }
                guard notification.method == "scan" else { continue }
                if let event = try? notification.scanEvent() { seqs.insert(event.seq) }
                if seqs.count == total { break }
            }
            return seqs
        }
        defer { received.cancel() }  // should the injections fail, the reading task stops too
        try await injectConcurrently(total, into: daemon)
        // Cancelling the wait cancels the reading task too, so a missing event fails the test
        // instead of leaving it waiting for ever.
        let seqs = try await within("the reading subscriber's events", timeout: .seconds(60)) {
            await withTaskCancellationHandler {
                await received.value
            } onCancel: {
                received.cancel()
            }
        }
        #expect(seqs == Set(1...UInt64(total)), "the reading subscriber got every event")

        // Now the stalled client reads: what was queued, then one overflow notice.
        try await stalled.startReading()
        let (lastSeq, dropped) = try await within("the overflow notice", timeout: .seconds(60)) {
            () async throws -> (UInt64, Int64?) in
            var lastSeq: UInt64 = 0
            var lines = stalled.lines.makeAsyncIterator()
            while let line = await lines.next() {
                let message = try JSONDecoder().decode(JSONValue.self, from: Data(line.utf8))
                switch message["method"]?.stringValue {
                case "scan": lastSeq = UInt64(message["params"]?["event"]?["seq"]?.intValue ?? 0)
                case "events.overflow": return (lastSeq, message["params"]?["dropped"]?.intValue)
                default: break
                }
            }
            return (lastSeq, nil)
        }
        let missed = try #require(dropped)
        #expect(missed > 0)
        #expect(lastSeq < UInt64(total), "the stalled client did not get everything")

        // It catches up with since: every later event, once, in order.
        try await stalled.send(#"{"jsonrpc":"2.0","id":2,"method":"events.subscribe","params":{"since":\#(lastSeq)}}"#)
        let expected = try await within("the catch-up replay", timeout: .seconds(60)) { () async throws -> UInt64 in
            var expected = lastSeq + 1
            var lines = stalled.lines.makeAsyncIterator()
            while expected <= UInt64(total), let line = await lines.next() {
                let message = try JSONDecoder().decode(JSONValue.self, from: Data(line.utf8))
                guard message["method"] == "scan", message["params"]?["subscription"] == "s2" else { continue }
                let seq = UInt64(message["params"]?["event"]?["seq"]?.intValue ?? 0)
                #expect(seq == expected)
                expected = seq + 1
            }
            return expected
        }
        #expect(expected == UInt64(total) + 1)
        await stalled.close()
        await reader.close()
    }
}

/// Many clients coming and going at once: every one is served, and each leaves nothing
/// behind in the daemon (no file descriptor, no subscription).
@Suite("Many clients end to end", .heavy, .timeLimit(.minutes(5)))
struct ManyClientsTests {
    @Test func fiftyClientsComeAndGo() async throws {
        let daemon = try await startDaemon(["--mock", "barcode:till-1"])
        let pid = try #require(daemon.pid)
        func openFiles() -> Int { ProcessStat.openFiles(of: pid) ?? .max }
        func round(_ name: String) async throws {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<50 {
                    group.addTask {
                        let client = try await daemon.connect()
                        _ = try await client.call("events.subscribe")
                        for n in 0..<10 { _ = try await client.inject(device: "mock:till-1", text: "\(name)\(worker)-\(n)") }
                        await client.close()
                    }
                }
                try await group.waitForAll()
            }
        }
        // The first round also opens the database's read connections (a bounded set, kept):
        // the second must leave the daemon with no more files open than the first did.
        try await round("a")
        var before = openFiles()
        try await waitUntil("the first round's sockets to close (open files: \(before))", timeout: .seconds(30)) {
            // Settled is the same count 200 ms apart: the interval is the measure, there is no event to wait for.
            try await Task.sleep(for: .milliseconds(200))
            let now = openFiles()
            defer { before = now }
            return now == before
        }
        try await round("b")
        try await waitUntil("every connection's socket to close (open files: \(openFiles()), before: \(before))") {
            openFiles() <= before
        }
        let client = try await daemon.connect()
        let recent = try await client.call("events.recent", ["limit": 1000])
        #expect(recent["events"]?.arrayValue?.count == 1000)
        #expect(try await client.call("bridge.hello")["name"] == "scanbridge")
        await client.close()
    }
}

/// A client that sends requests and reads no answers is not read from until it does: its
/// answers wait (bounded), and every request gets exactly one answer (a burst past the
/// pending limit is answered `-32005`, as docs/protocol.md says), none is lost.
@Suite("Unread answers end to end", .heavy, .timeLimit(.minutes(5)))
struct UnreadAnswersTests {
    @Test func requestsWaitForTheClientToRead() async throws {
        let daemon = try await startDaemon([], config: "server:\n  pending_requests: 16\n")
        let raw = try await RawConnection.connect(socketPath: daemon.socketPath, reading: false)
        let total = 2_000
        let sent = SentCount()
        let sender = Task {
            for id in 1...total {
                try await raw.send(#"{"jsonrpc":"2.0","id":\#(id),"method":"bridge.hello"}"#)
                sent.count.withLock { $0 = id }
            }
        }
        // The backpressure: with its answers unread, the daemon stops reading this client, both
        // socket buffers fill, and the sends stall short of the end. Stalled is the same count
        // before and after two round trips of another client: the daemon ran meanwhile, and
        // took nothing more from this one. A daemon that kept reading would take every request.
        let other = try await daemon.connect()
        // A deadline for a loaded machine: with every suite running at once, the sends can
        // crawl for a while before both buffers are full.
        let stalledAt = try await waitFor(
            "the sends to stall unread (\(sent.count.withLock { $0 }) of \(total) sent)", timeout: .seconds(120)
        ) {
            () async throws -> Int? in
            let before = sent.count.withLock { $0 }
            guard before < total else { throw Unstalled(total: total) }
            guard before > 0 else { return nil }
            for _ in 0..<2 { _ = try await other.call("bridge.hello") }
            return sent.count.withLock { $0 } == before ? before : nil
        }
        await other.close()
        try await raw.startReading()
        let ids = try await within("every answer", timeout: .seconds(60)) { () async throws -> Set<Int64> in
            var ids = Set<Int64>()
            var lines = raw.lines.makeAsyncIterator()
            while ids.count < total, let line = await lines.next() {
                let answer = try JSONValue(parsing: Array(line.utf8))
                let code = answer["error"]?["code"]?.intValue
                #expect(answer["result"] != nil || code == Int64(RPCError.overloaded), "\(line)")
                if let id = answer["id"]?.intValue {
                    #expect(!ids.contains(id), "one answer per request")
                    ids.insert(id)
                }
            }
            return ids
        }
        try await within("the sender to finish") { try await sender.value }
        #expect(ids == Set(1...Int64(total)), "stalled at \(stalledAt) sent")
        await raw.close()
    }

    /// How many requests the sender has sent so far.
    final class SentCount: Sendable {
        let count = Mutex(0)
    }

    /// Every request went out while nothing was read: the daemon never stopped reading.
    struct Unstalled: Error, CustomStringConvertible {
        let total: Int
        var description: String { "all \(total) requests were sent with no answer read: the daemon kept reading" }
    }
}
