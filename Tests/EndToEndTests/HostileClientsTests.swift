import Foundation
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeTesting
import Testing

/// A client that means harm, each beside a well-behaved `Bystander` that must keep getting
/// its events and answers. What a limit refuses is in docs/protocol.md (Limits). Elsewhere:
/// a subscriber that never reads (BackpressureTests, ConnectionBufferTests), answers never
/// read (UnreadAnswersTests), connections up to the limit and a silent partial line
/// (ConnectionLimitsTests), a line past the limit and random bytes (BadInputTests).
@Suite("Hostile clients end to end", .heavy, .timeLimit(.minutes(5)))
struct HostileClientsTests {
    static let hello = #"{"jsonrpc":"2.0","id":"alive","method":"bridge.hello"}"#

    /// The hostile connection is still served once it behaves: a request is answered (after
    /// a flood, once the daemon has worked through or dropped what it had), and nothing but
    /// answers to its requests comes: a dropped notification is not answered.
    static func expectServed(_ raw: RawConnection) async throws {
        try await waitUntil("a hello answered on the hostile connection", timeout: .seconds(30)) {
            try await raw.send(Self.hello)
            let answer = try await raw.nextJSON()
            #expect(answer["id"] == "alive", "only the hello's answer: \(answer)")
            return answer["result"] != nil
        }
    }

    @Test func garbageBatchesAreRefusedUnreadAndTheOthersGoOn() async throws {
        let daemon = try await startDaemon(["--mock", "barcode:till-1"])
        var bystander = try await Bystander.connect(to: daemon)
        let raw = try await RawConnection.connect(socketPath: daemon.socketPath)
        // The longest line the default limit lets in (1 MiB): `[1,1,1,…]`, half a million elements.
        let ones = (1_048_576 - 1) / 2
        let mebibyte = [UInt8(ascii: "[")] + Array(repeating: Array("1,".utf8), count: ones - 1).joined() + Array("1]".utf8)
        #expect(mebibyte.count <= 1_048_576)
        let overMaxBatch = "[" + Array(repeating: Self.hello, count: 1_001).joined(separator: ",") + "]"
        for round in 0..<3 {
            try await raw.send(mebibyte + [0x0A])
            try await raw.send(overMaxBatch)
            for _ in 0..<2 {
                let refused = try await raw.nextJSON()
                #expect(refused["id"] == .null && refused.errorCode == -32600, "\(refused)")
                #expect(refused["error"]?["message"]?.stringValue?.contains("at most") == true, "\(refused)")
            }
            try await bystander.check("garbage-\(round)")
        }
        try await Self.expectServed(raw)
        await raw.close()
        await bystander.close()
    }

    @Test func aNotificationFloodPastThePendingLimitIsDropped() async throws {
        let daemon = try await startDaemon(["--mock", "barcode:till-1"], config: "server:\n  pending_requests: 64\n")
        var bystander = try await Bystander.connect(to: daemon)
        let raw = try await RawConnection.connect(socketPath: daemon.socketPath)
        // The dearest calls a reader may make, as notifications: nobody waits for them, so
        // nothing slows the sender down but the socket.
        let recent = #"{"jsonrpc":"2.0","method":"events.recent","params":{"limit":1000}}"#
        let batch = "[" + Array(repeating: recent, count: 1_000).joined(separator: ",") + "]"
        for round in 0..<20 {
            try await raw.send(batch)
            for _ in 0..<100 { try await raw.send(recent) }
            if round % 5 == 4 { try await bystander.check("flood-\(round)") }
        }
        try await bystander.check("after-flood")
        try await Self.expectServed(raw)
        await raw.close()
        await bystander.close()
    }

    @Test func aNotificationWhoseOnlyEffectIsItsAnswerIsNotRun() async throws {
        let daemon = try await startDaemon([], config: "server:\n  pending_requests: 4\n")
        let raw = try await RawConnection.connect(socketPath: daemon.socketPath)
        // Run, the hundred would hold every pending slot when the request behind them is read.
        let recent = #"{"jsonrpc":"2.0","method":"events.recent","params":{"limit":1000}}"#
        try await raw.send(Array(repeating: recent, count: 100).joined(separator: "\n") + "\n" + Self.hello)
        let answer = try await raw.nextJSON()
        #expect(answer["id"] == "alive" && answer["result"] != nil, "\(answer)")
        await raw.close()
    }

    @Test func subscribeAndUnsubscribeChurnLeavesNoSubscriptionBehind() async throws {
        let daemon = try await startDaemon(
            ["--mock", "barcode:till-1"], config: "server:\n  subscriptions_per_connection: 2\n")
        var bystander = try await Bystander.connect(to: daemon)
        let churner = try await daemon.connect()
        for round in 0..<10 {
            for _ in 0..<100 {
                let subscription = try #require(try await churner.call("events.subscribe")["subscription"])
                _ = try await churner.call("events.unsubscribe", ["subscription": subscription])
            }
            try await bystander.check("churn-\(round)", count: 1)
        }
        // With a leak of one a cycle, the third subscription of 1,000 would have been refused.
        _ = try await churner.call("events.subscribe")
        _ = try await churner.call("events.subscribe")
        await churner.close()
        await bystander.close()
    }

    @Test func aPartialLineSentSlowlyIsCutOffAtTheLineLimit() async throws {
        let limit = 4096
        let daemon = try await startDaemon(["--mock", "barcode:till-1"], config: "server:\n  max_line_bytes: \(limit)\n")
        var bystander = try await Bystander.connect(to: daemon)
        let raw = try await RawConnection.connect(socketPath: daemon.socketPath)
        try await raw.send(Array(#"{"jsonrpc":"2.0","id":1,"method":"bridge.hello","params":{"pad":""#.utf8))
        var sent = 0
        // 64 bytes every 2 ms, never a newline: the pause is the point, a sender too slow for
        // a read to ever hold a whole line. Up to three times the limit, unless cut off first.
        while raw.isActive, sent < 3 * limit {
            guard (try? await raw.send(Array(repeating: UInt8(ascii: "x"), count: 64))) != nil else { break }
            sent += 64
            if sent % 1024 == 0 { try await bystander.check("drip-\(sent)", count: 1) }
            try await Task.sleep(for: .milliseconds(2))
        }
        let refused = try await raw.nextJSON()
        #expect(refused.errorCode == -32600 && refused["error"]?["message"]?.stringValue?.contains("too large") == true)
        try await waitUntil("the dripping connection closed") { !raw.isActive }
        #expect(sent >= limit - 64, "not cut off before the limit (\(sent) bytes sent)")
        try await bystander.check("after-drip")
        await raw.close()
        await bystander.close()
    }
}

/// A client that never reads cannot hold up the daemon's stop: SIGTERM still ends it
/// cleanly, with requests of that client waiting for room to answer in.
@Suite("Hostile clients at a stop", .heavy, .timeLimit(.minutes(5)))
struct HostileClientsAtAStopTests {
    @Test func aClientThatNeverReadsDoesNotHoldUpSIGTERM() async throws {
        let daemon = try await startDaemon(
            ["--mock", "barcode:till-1"], config: "server:\n  connection_buffer_bytes: 65536\n")
        try await injectConcurrently(2_000, into: daemon, text: String(repeating: "s", count: 500))
        let stalled = try await RawConnection.connect(socketPath: daemon.socketPath, reading: false)
        // The first answer (about 1 MiB) fills the socket and the outbox past its bytes: the
        // next ones wait for room the client never makes.
        for id in 1...4 {
            try await stalled.send(#"{"jsonrpc":"2.0","id":\#(id),"method":"events.recent","params":{"limit":1000}}"#)
        }
        // No event says the daemon has read the four lines; a bystander's round trip lets its
        // event loops turn. Should they still be unread, the stop is only easier: this test can
        // pass by luck, never fail by it.
        let bystander = try await daemon.connect()
        #expect(try await bystander.call("bridge.hello")["name"] == "scanbridge")
        await bystander.close()
        #expect(try await daemon.stop() == 0, "a clean exit, not the shutdown's deadline:\n\(daemon.log.suffix(2000))")
        await stalled.close()
    }

    /// Every kind at once, on the socket and the gateway: SIGTERM still ends the daemon with
    /// exit 0, its connections closed, never the shutdown's deadline.
    @Test func everyKindOfHostileClientAtOnceDoesNotHoldUpSIGTERM() async throws {
        let gateway = try await GatewayDaemon.start()
        try await injectConcurrently(2_000, into: gateway.daemon, text: String(repeating: "t", count: 500))
        let (secret, _) = try await gateway.token("reader")
        let stalled = try await RawConnection.connect(socketPath: gateway.daemon.socketPath, reading: false)
        let recent = #"{"jsonrpc":"2.0","id":1,"method":"events.recent","params":{"limit":1000}}"#
        try await stalled.send("[" + Array(repeating: recent, count: 200).joined(separator: ",") + "]")
        for _ in 0..<32 { try await stalled.send(#"{"jsonrpc":"2.0","id":2,"method":"events.subscribe"}"#) }
        let slow = try await gateway.client.connect()
        try await slow.send(Array("GET /healthz HTTP/1.1\r\nHost: ".utf8))
        let pipelining = try await gateway.client.connect(reading: false)
        try await pipelining.send(
            Array(String(repeating: "GET /app.mjs HTTP/1.1\r\nHost: \(gateway.client.hostHeader)\r\n\r\n", count: 500).utf8))
        let replay = try await gateway.client.events(
            "/v1/events?access_token=\(secret)", headers: [("Last-Event-ID", "0")], reading: false
        ).opened()
        let pinging = try await gateway.client.webSocket("/v1/ws?access_token=\(secret)", reading: false).opened()
        for _ in 0..<200 { try await pinging.send(WebSocketClient.Frame(fin: true, opcode: WebSocketClient.ping, payload: [1])) }
        let bystander = try await gateway.daemon.connect()
        #expect(try await bystander.call("bridge.hello")["name"] == "scanbridge")
        await bystander.close()
        await gateway.admin.close()
        #expect(try await gateway.daemon.stop() == 0, "a clean exit:\n\(gateway.daemon.log.suffix(2000))")
        #expect(!gateway.daemon.log.contains("Cancellation took longer"))
        for connection in [slow, pipelining] { await connection.close() }
        await replay.close()
        await pinging.close()
        await stalled.close()
    }
}
