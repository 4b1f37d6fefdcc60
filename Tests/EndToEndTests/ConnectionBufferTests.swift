import Foundation
import ScanBridgeClient
import ScanBridgeModel
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
