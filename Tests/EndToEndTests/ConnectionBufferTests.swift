import Foundation
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeRPC
import ScanBridgeTesting
import Testing

/// What waits for one client is bounded in bytes, not only in counts; an unsubscribe drops
/// what was queued for the subscription, and an overflowed subscription is closed at once,
/// before the client reads anything.
@Suite("Connection buffers end to end", .heavy, .timeLimit(.minutes(5)))
struct ConnectionBufferTests {
    static let subscribe = #"{"jsonrpc":"2.0","id":1,"method":"events.subscribe"}"#

    /// Reads lines until one satisfies `last`; returns them all, that one included.
    static func read(_ raw: RawConnection, until last: @escaping @Sendable (JSONValue) -> Bool) async throws -> [JSONValue] {
        try await within("the line awaited", timeout: .seconds(60)) {
            var read: [JSONValue] = []
            var lines = raw.lines.makeAsyncIterator()
            while let line = await lines.next() {
                let message = try JSONValue(parsing: Array(line.utf8))
                read.append(message)
                if last(message) { return read }
            }
            throw ConnectionClosed(awaited: "the line awaited")
        }
    }

    @Test func aSubscriberThatDoesNotReadIsBoundedInBytes() async throws {
        let daemon = try await startDaemon(
            ["--mock", "barcode:till-1"],
            config: "server:\n  subscription_queue: 100000\n  connection_buffer_bytes: 65536\n")
        let stalled = try await RawConnection.connect(socketPath: daemon.socketPath, reading: false)
        try await stalled.send(Self.subscribe)
        try await injectConcurrently(3000, into: daemon, text: String(repeating: "x", count: 200))
        try await stalled.startReading()
        let lines = try await Self.read(stalled) { $0["method"] == "events.overflow" }
        let scans = lines.filter { $0["method"] == "scan" }.count
        #expect(scans < 3000, "far fewer than the 100,000 events the count bound allows")
        await stalled.close()
    }

    /// Every connection's buffers together are bounded too: under pressure, the subscriber
    /// holding the most gives its events back and overflows, and one that reads keeps all.
    @Test func theDaemonsBuffersTogetherAreBoundedAndTheLargestGivesWay() async throws {
        let daemon = try await startDaemon(
            ["--mock", "barcode:till-1"],
            config: "server:\n  subscription_queue: 100000\n  connection_buffer_bytes: 4194304\n  total_buffer_bytes: 1048576\n")
        let stalled = try await RawConnection.connect(socketPath: daemon.socketPath, reading: false)
        try await stalled.send(Self.subscribe)
        let reading = try await RawConnection.connect(socketPath: daemon.socketPath)
        try await reading.send(Self.subscribe)
        _ = try await Self.read(reading) { $0["id"] == 1 }
        let count = 3000
        try await injectConcurrently(count, into: daemon, text: String(repeating: "w", count: 300))
        let seen = try await within("the reading subscriber's scans", timeout: .seconds(60)) {
            var scans = 0
            var lines = reading.lines.makeAsyncIterator()
            while scans < count, let line = await lines.next() {
                let message = try JSONValue(parsing: Array(line.utf8))
                #expect(message["method"] != "events.overflow", "the subscriber that reads never overflows")
                if message["method"] == "scan" { scans += 1 }
            }
            return scans
        }
        #expect(seen == count)
        try await stalled.startReading()
        let lines = try await Self.read(stalled) { $0["method"] == "events.overflow" }
        #expect(lines.filter { $0["method"] == "scan" }.count < count, "the stalled subscriber gave its events back")
        await stalled.close()
        await reading.close()
    }

    @Test func anOverflowedSubscriptionIsClosedBeforeTheClientReads() async throws {
        let daemon = try await startDaemon(
            ["--mock", "barcode:till-1"],
            config: "server:\n  subscription_queue: 50\n  subscriptions_per_connection: 1\n")
        let stalled = try await RawConnection.connect(socketPath: daemon.socketPath, reading: false)
        try await stalled.send(Self.subscribe)
        // Enough to fill both socket buffers and the queue: the daemon cannot write any more.
        try await injectConcurrently(3000, into: daemon, text: String(repeating: "y", count: 200))
        // Its one subscription slot is free again, though the overflow notice is still unsent.
        try await stalled.send(#"{"jsonrpc":"2.0","id":2,"method":"events.subscribe"}"#)
        try await stalled.startReading()
        let lines = try await Self.read(stalled) { $0["id"] == 2 }
        #expect(lines.contains { $0["method"] == "events.overflow" && $0["params"]?["subscription"] == "s1" })
        #expect(lines.last?["result"]?["subscription"] == "s2", "\(lines.last ?? .null)")
        await stalled.close()
    }

    @Test func anUnsubscribeDropsWhatWasQueuedForIt() async throws {
        let daemon = try await startDaemon(["--mock", "barcode:till-1"])
        let stalled = try await RawConnection.connect(socketPath: daemon.socketPath, reading: false)
        try await stalled.send(Self.subscribe)
        try await injectConcurrently(3000, into: daemon, text: String(repeating: "z", count: 200))
        try await stalled.send(#"{"jsonrpc":"2.0","id":2,"method":"events.unsubscribe","params":{"subscription":"s1"}}"#)
        try await stalled.send(#"{"jsonrpc":"2.0","id":3,"method":"bridge.hello"}"#)
        try await stalled.startReading()
        let lines = try await Self.read(stalled) { $0["id"] == 3 }
        let answer = try #require(lines.firstIndex { $0["id"] == 2 })
        #expect(lines[answer]["result"] == .object([:]))
        #expect(!lines[answer...].contains { $0["method"] == "scan" }, "nothing of s1 follows its unsubscribe")
        let delivered = lines[..<answer].filter { $0["method"] == "scan" }.count
        #expect(delivered < 3000, "what the daemon still held for s1 was dropped, not sent")
        await stalled.close()
    }

    @Test func eventsRecentIsBoundedInBytesAndKeepsTheNewest() async throws {
        let daemon = try await startDaemon(["--mock", "barcode:till-1"])
        try await injectConcurrently(1000, into: daemon, text: String(repeating: "w", count: 2000))
        let client = try await daemon.connect()
        let recent = try #require(try await client.call("events.recent", ["limit": 1000])["events"]?.arrayValue)
        #expect(recent.count < 1000)
        #expect(recent.count > 100)
        let bytes = try recent.reduce(0) { $0 + (try JSONEncoder().encode($1)).count }
        #expect(bytes <= 1 << 20 + 4096, "1 MiB, as the daemon counts it, give or take the encoder's spacing")
        #expect(recent.last?["seq"] == 1000, "the newest are kept, the oldest left out")
        let seqs = recent.compactMap { $0["seq"]?.intValue }
        #expect(seqs == Array(seqs.first!...1000))
        await client.close()
    }
}

/// A batch's answers are bounded in bytes as they are made: one line of a thousand large
/// answers costs about one line's worth, and the calls past it are answered `-32005`.
@Suite("Batch answers end to end", .heavy, .timeLimit(.minutes(5)))
struct BatchAnswerTests {
    static func recentBatch(_ count: Int) -> String {
        "["
            + (1...count).map { #"{"jsonrpc":"2.0","id":\#($0),"method":"events.recent","params":{"limit":1000}}"# }
            .joined(separator: ",") + "]"
    }

    /// The answers of a batch in its order: how many were results, how many `-32005`, and the
    /// bytes of the results.
    static func tally(_ answers: JSONValue?) throws -> (results: Int, refused: Int, bytes: Int) {
        let elements = try #require(answers?.arrayValue)
        let results = elements.filter { $0["result"] != nil }
        let refused = elements.filter { $0["error"]?["code"] == -32005 }
        for (position, element) in elements.enumerated() { #expect(element["id"]?.intValue == Int64(position + 1)) }
        #expect(refused.first?["error"]?["message"]?.stringValue?.contains("server.max_line_bytes") == true)
        return (results.count, refused.count, results.map { JSONWriter.bytes(.value($0)).count }.reduce(0, +))
    }

    @Test func aBatchOfLargeAnswersStopsAtTheLineLimit() async throws {
        let daemon = try await startDaemon(["--mock", "barcode:till-1"], config: "server:\n  max_line_bytes: 262144\n")
        try await injectConcurrently(1000, into: daemon, text: String(repeating: "z", count: 200))
        let pid = try #require(daemon.pid)
        let rss = ProcessStat.megabytes("VmRSS", of: pid)
        let stalled = try await RawConnection.connect(socketPath: daemon.socketPath, reading: false)
        try await stalled.send(Self.recentBatch(1000))
        // Answered (or not) while the client reads nothing: what it costs is bounded now.
        try await Task.sleep(for: .seconds(3))
        #expect(ProcessStat.megabytes("VmRSS", of: pid) <= rss + 64, "the unread batch's answers grew the daemon")
        try await stalled.startReading()
        let line = try await within("the batch's answer") {
            var lines = stalled.lines.makeAsyncIterator()
            return try #require(await lines.next())
        }
        let (results, refused, bytes) = try Self.tally(try JSONValue(parsing: Array(line.utf8)))
        #expect(results >= 1 && results + refused == 1000, "\(results) results, \(refused) refused")
        // The calls running when the limit was reached finish: at most that many answers more.
        #expect(bytes < 262_144 + 17 * (bytes / max(results, 1)), "\(bytes) bytes of results")
        await stalled.close()
    }

    @Test func aBatchOverHTTPIsBoundedTheSameWay() async throws {
        let gateway = try await GatewayDaemon.start()
        try await injectConcurrently(1000, into: gateway.daemon, text: String(repeating: "z", count: 200))
        let (secret, _) = try await gateway.token("reader")
        let reply = try await gateway.client.rpc(Self.recentBatch(200), token: secret)
        let (results, refused, _) = try Self.tally(reply.json)
        #expect(results >= 1 && refused >= 1 && results + refused == 200, "\(results) results, \(refused) refused")
        try await gateway.stop()
    }
}
