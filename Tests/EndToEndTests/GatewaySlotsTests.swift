import Foundation
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeRPC
import ScanBridgeTesting
import Synchronization
import Testing

/// Every gateway connection holds a place only while it is used: deadlines close the slow and
/// the silent, and at a bound the connection that has waited longest for a request gives its
/// place to a new one (docs/gateway.md, Connections and their deadlines).
@Suite("Gateway places and deadlines", .heavy, .timeLimit(.minutes(5)))
struct GatewaySlotsTests {
    /// One header byte now and then keeps no place: the request must be whole in time.
    @Test func aRequestSentAByteAtATimeIsClosedAtItsDeadline() async throws {
        let gateway = try await GatewayDaemon.start(http: "  request_timeout_ms: 1000\n  idle_timeout_ms: 60000")
        let slow = try await gateway.client.connect()
        let started = ContinuousClock.now
        let dribble = Task {
            for byte in "GET /healthz HTTP/1.1\r\nHost: \(gateway.client.hostHeader)\r\nX-Pad: ".utf8 {
                try await slow.send([byte])
                try await Task.sleep(for: .milliseconds(200))
            }
        }
        let sent = try await within("the slow request closed", timeout: .seconds(30)) { await slow.readToEnd() }
        dribble.cancel()
        #expect(sent.isEmpty, "closed without an answer")
        #expect(ContinuousClock.now - started < .seconds(20), "closed at the request deadline, not the idle one")
        #expect(try await gateway.client.request("GET", "/healthz").status == 200)
        try await gateway.stop()
    }

    /// A full gateway closes the connection that has waited longest for a request to let a new
    /// one in; when every place is busy (streams here), the new one is answered 503 at once.
    @Test func aFullGatewayGivesTheLongestWaitingPlaceToANewConnection() async throws {
        let gateway = try await GatewayDaemon.start(http: "  max_connections: 3")
        let (secret, _) = try await gateway.token("reader")
        var silent: [GatewayConnection] = []
        for _ in 0..<3 { silent.append(try await gateway.client.connect()) }
        #expect(try await gateway.client.request("GET", "/healthz").status == 200, "a new request gets a place")
        let longest = silent[0]
        let first = try await within("the longest waiting closed") { await longest.readToEnd() }
        #expect(first.isEmpty)
        let streams = [
            try await gateway.client.events("/v1/events?access_token=\(secret)").opened(),
            try await gateway.client.events("/v1/events?access_token=\(secret)").opened(),
            try await gateway.client.events("/v1/events?access_token=\(secret)").opened(),
        ]
        let refused = try await gateway.client.request("GET", "/healthz")
        #expect(refused.status == 503 && refused.errorCode == "overloaded", "\(refused)")
        #expect(refused.text.contains("http.max_connections"), "\(refused.text)")
        _ = try await gateway.admin.inject(device: "mock:till-1", text: "4006381333931")
        for stream in streams { #expect(try await stream.next()?.event == "scan", "the streams kept their places") }
        for connection in silent { await connection.close() }
        for stream in streams { await stream.close() }
        try await gateway.stop()
    }

    /// A token's calls over `POST /v1/rpc` are admitted together, as one connection's: a
    /// token cannot run more at once by opening more connections.
    @Test func aTokensCallsTogetherAreBoundedByThePendingLimit() async throws {
        let gateway = try await GatewayDaemon.start(server: "  pending_requests: 2\nhandlers:\n  timeout_ms: 30000")
        let (secret, _) = try await gateway.token("admin")
        final class Gate: Sendable {
            let asked = Mutex(0)
            let open = Mutex(false)
        }
        let gate = Gate()
        gateway.admin.setRequestHandler { request in
            gate.asked.withLock { $0 += 1 }
            try await waitUntil("the test to let the handler answer", timeout: .seconds(25)) { gate.open.withLock { $0 } }
            return .value(["status": "found", "text": request.params["event"]?["text"] ?? .null])
        }
        _ = try await gateway.admin.call("handlers.register", ["name": "held", "match": ["kinds": ["barcode"]], "priority": 5])
        let inject = { (text: String) in
            #"{"jsonrpc":"2.0","id":"\#(text)","method":"scan.inject","params":{"device":"mock:till-1","text":"\#(text)"}}"#
        }
        let held = Task { try await gateway.client.rpc("[" + inject("H1") + "," + inject("H2") + "]", token: secret) }
        try await waitUntil("both held calls to reach the handler") { gate.asked.withLock { $0 } >= 2 }
        let refused = try await gateway.client.rpc(#"{"jsonrpc":"2.0","id":1,"method":"bridge.hello"}"#, token: secret)
        #expect(refused.status == 503 && refused.text.contains("server.pending_requests"), "\(refused)")
        gate.open.withLock { $0 = true }
        #expect(try await held.value.json?.arrayValue?.count == 2)
        let after = try await gateway.client.rpc(#"{"jsonrpc":"2.0","id":1,"method":"bridge.hello"}"#, token: secret)
        #expect(after.status == 200, "\(after)")
        try await gateway.stop()
    }

    @Test func oneAddressHasItsOwnBound() async throws {
        let gateway = try await GatewayDaemon.start(http: "  max_connections_per_address: 1")
        let (secret, _) = try await gateway.token("reader")
        let stream = try await gateway.client.events("/v1/events?access_token=\(secret)").opened()
        let refused = try await gateway.client.request("GET", "/healthz")
        #expect(refused.status == 503 && refused.text.contains("http.max_connections_per_address"), "\(refused)")
        await stream.close()
        try await waitUntil("the address's place given back") {
            try await gateway.client.request("GET", "/healthz").status == 200
        }
        try await gateway.stop()
    }

    /// One token holds at most `http.max_streams_per_token` WebSockets and event streams: a
    /// leaked reader token cannot take every place, nor fill the daemon with replays.
    @Test func oneTokenHasABoundOnItsStreams() async throws {
        let gateway = try await GatewayDaemon.start(http: "  max_streams_per_token: 2")
        let (secret, _) = try await gateway.token("reader")
        let stream = try await gateway.client.events("/v1/events?access_token=\(secret)").opened()
        let webSocket = try await gateway.client.webSocket("/v1/ws?access_token=\(secret)").opened()
        let third = try #require(await gateway.client.events("/v1/events?access_token=\(secret)").refusal())
        #expect(third.status == 503 && third.text.contains("http.max_streams_per_token"), "\(third)")
        let socket = try #require(await gateway.client.webSocket("/v1/ws?access_token=\(secret)").refusal())
        #expect(socket.status == 503 && socket.text.contains("http.max_streams_per_token"), "\(socket)")
        let (other, _) = try await gateway.token("reader")
        let another = try await gateway.client.events("/v1/events?access_token=\(other)").opened()
        await another.close()
        await stream.close()
        try await waitUntil("the token's stream given back") {
            if case .success(let stream) = try await gateway.client.events("/v1/events?access_token=\(secret)") {
                await stream.close()
                return true
            }
            return false
        }
        await webSocket.close()
        try await gateway.stop()
    }

    /// A body is read before its token is checked: the bodies every connection holds
    /// together are bounded, past it a request is refused, and a connection's bytes count no
    /// more once it closes.
    @Test func theBodiesHeldTogetherAreBounded() async throws {
        // A quarter of the 1 MiB budget: 262,144 bytes.
        let gateway = try await GatewayDaemon.start(server: "  total_buffer_bytes: 1048576")
        let (secret, _) = try await gateway.token("reader")
        let post = { (length: Int) in
            Array("POST /v1/rpc HTTP/1.1\r\nHost: \(gateway.client.hostHeader)\r\nContent-Length: \(length)\r\n\r\n".utf8)
        }
        var held: [GatewayConnection] = []
        for _ in 0..<4 {
            let connection = try await gateway.client.connect()
            try await connection.send(post(64_000) + [UInt8](repeating: 0x20, count: 60_000))
            held.append(connection)
        }
        try await Task.sleep(for: .milliseconds(500))
        let refused = try await gateway.client.connect()
        try await refused.send(post(30_000) + [UInt8](repeating: 0x20, count: 30_000))
        let answer = String(decoding: try await within("the refusal") { await refused.readToEnd() }, as: UTF8.self)
        #expect(answer.hasPrefix("HTTP/1.1 503") && answer.contains("request bodies"), "\(answer.prefix(300))")
        await held.removeFirst().close()
        try await Task.sleep(for: .milliseconds(500))
        let hello = #"{"jsonrpc":"2.0","id":1,"method":"bridge.hello","params":{"pad":""#
        let reply = try await gateway.client.rpc(hello + String(repeating: "x", count: 30_000) + "\"}}", token: secret)
        #expect(reply.status == 200, "room again once a holder closed")
        for connection in held { await connection.close() }
        try await gateway.stop()
    }

    /// A client that takes none of its answers is closed after the idle timeout, its
    /// request held meanwhile.
    @Test func aClientThatTakesNoAnswersIsClosed() async throws {
        let gateway = try await GatewayDaemon.start(http: "  idle_timeout_ms: 2000")
        try String(repeating: "export const x = 1;\n", count: 400_000).write(
            to: gateway.daemon.directory.appendingPathComponent("web/large.mjs"), atomically: true, encoding: .utf8)
        let hog = try await gateway.client.connect(reading: false)
        try await hog.send(Array("GET /large.mjs HTTP/1.1\r\nHost: \(gateway.client.hostHeader)\r\n\r\n".utf8))
        try await Task.sleep(for: .seconds(4))
        try await hog.startReading()
        let taken = try await within("the stalled connection's end") { await hog.readToEnd() }
        #expect(taken.count < 8_000_000, "closed before its whole answer: \(taken.count) bytes")
        try await gateway.stop()
    }

    /// A WebSocket that says nothing is pinged; one that answers stays, one that does not is
    /// closed, so a tablet gone without a goodbye gives its place back.
    @Test func aSilentWebSocketIsPingedAndClosedWhenItDoesNotAnswer() async throws {
        let gateway = try await GatewayDaemon.start(http: "  idle_timeout_ms: 2000")
        let (secret, _) = try await gateway.token("reader")
        let socket = try await gateway.client.webSocket("/v1/ws?access_token=\(secret)").opened()
        for _ in 0..<3 {
            let ping = try await socket.receiveFrame(timeout: .seconds(10))
            #expect(ping.opcode == WebSocketClient.ping)
            try await socket.send(WebSocketClient.Frame(fin: true, opcode: WebSocketClient.pong, payload: ping.payload))
        }
        let started = ContinuousClock.now
        #expect(try await socket.closeCode() == nil, "closed without a close frame: the client is gone")
        #expect(ContinuousClock.now - started < .seconds(10))
        try await gateway.stop()
    }
}
