import Foundation
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeTesting
import Testing

/// The gateway through real HTTP, WebSocket and Server-Sent Events connections to the real
/// daemon, with real tokens made over its socket (docs/protocol.md, Web and network access).
@Suite("Gateway end to end", .heavy, .timeLimit(.minutes(5)))
struct GatewayTests {
    @Test func everyEndpointAnswersWithAToken() async throws {
        let gateway = try await GatewayDaemon.start()
        let client = gateway.client
        let (secret, _) = try await gateway.token("admin")
        let bearer = [("Authorization", "Bearer \(secret)")]

        let health = try await client.request("GET", "/healthz")
        #expect(health.status == 200 && health.json == ["status": "ok"])
        let ready = try await client.request("GET", "/readyz", headers: bearer)
        #expect(ready.status == 200, "\(ready)")
        let metrics = try await client.request("GET", "/metrics?access_token=\(secret)")
        #expect(metrics.status != 401 && metrics.status != 403, "\(metrics)")

        let hello = try await client.rpc(#"{"jsonrpc":"2.0","id":1,"method":"bridge.hello"}"#, token: secret)
        #expect(hello.status == 200 && hello.headers["content-type"] == "application/json")
        #expect(hello.json?["result"]?["role"] == "admin", "\(hello)")
        let notification = try await client.rpc(#"{"jsonrpc":"2.0","method":"devices.list"}"#, token: secret)
        #expect(notification.status == 204 && notification.body.isEmpty)
        let batch = try await client.rpc(
            #"[{"jsonrpc":"2.0","id":1,"method":"devices.list"},{"jsonrpc":"2.0","id":2,"method":"events.subscribe"},{"jsonrpc":"2.0","id":3,"method":"handlers.register","params":{"name":"x","match":{}}}]"#,
            token: secret)
        let answers = try #require(batch.json?.arrayValue)
        #expect(answers.count == 3)
        #expect(answers[0]["result"]?["devices"]?[0]?["id"] == "mock:till-1")
        #expect(answers[1]["error"]?["code"] == -32601 && answers[2]["error"]?["code"] == -32601)
        let broken = try await client.rpc("{not json", token: secret)
        #expect(broken.status == 200 && broken.json?["error"]?["code"] == -32700)

        let tooLarge = try await client.rpc(
            #"{"jsonrpc":"2.0","id":1,"method":"bridge.hello","params":{"pad":""# + String(repeating: "x", count: 70_000)
                + #""}}"#, token: secret)
        #expect(tooLarge.status == 413 && tooLarge.errorCode == "too_large", "\(tooLarge.status)")
        let wrongType = try await client.request(
            "POST", "/v1/rpc", headers: bearer + [("Content-Type", "text/plain")], body: Array("{}".utf8))
        #expect(wrongType.status == 415 && wrongType.errorCode == "unsupported_media_type")

        let page = try await client.request("GET", "/")
        #expect(page.status == 200 && page.text.contains("ScanBridge"))
        #expect(page.headers["content-type"] == "text/html; charset=utf-8")
        #expect(page.headers["x-content-type-options"] == "nosniff")
        #expect(page.headers["content-security-policy"]?.contains("default-src 'self'") == true)
        let module = try await client.request("GET", "/app.mjs")
        #expect(module.headers["content-type"] == "text/javascript; charset=utf-8")
        for escape in ["/../scanbridge.yaml", "/%2e%2e/scanbridge.yaml", "/..%2fscanbridge.yaml", "/.hidden"] {
            let outside = try await client.request("GET", escape)
            #expect(outside.status == 404 && outside.errorCode == "not_found", "\(escape): \(outside)")
        }
        #expect(!gateway.daemon.log.contains(secret.dropFirst(4)), "no secret in the log")
        try await gateway.stop()
    }

    @Test func everyRefusalIsClearAndInOrder() async throws {
        let gateway = try await GatewayDaemon.start()
        let client = gateway.client
        let (reader, _) = try await gateway.token("reader")
        let (withOrigin, _) = try await gateway.token("reader", origins: ["https://till.example"])

        let missing = try await client.request("GET", "/readyz")
        #expect(missing.status == 401 && missing.errorCode == "unauthorized")
        let unknown = try await client.request("GET", "/readyz", headers: [("Authorization", "Bearer sbt_nope")])
        #expect(unknown.status == 401 && unknown.errorCode == "unauthorized")
        let rebound = try await client.request(
            "GET", "/readyz", headers: [("Host", "attacker.example:\(client.port)"), ("Authorization", "Bearer \(reader)")])
        #expect(rebound.status == 403 && rebound.errorCode == "forbidden_host")
        let reboundPage = try await client.request("GET", "/", headers: [("Host", "attacker.example")])
        #expect(reboundPage.status == 403, "the Host check comes first, even for the page")
        let localhost = try await client.request("GET", "/healthz", headers: [("Host", "localhost:\(client.port)")])
        #expect(localhost.status == 200)

        let strangeOrigin = [("Origin", "https://evil.example"), ("Authorization", "Bearer \(reader)")]
        let foreign = try await client.request("GET", "/readyz", headers: strangeOrigin)
        #expect(foreign.status == 403 && foreign.errorCode == "forbidden_origin")
        #expect(
            foreign.headers["access-control-allow-origin"] == "https://evil.example",
            "a refusal carries CORS headers, so the page's script reads its reason")
        let listed = try await client.request(
            "GET", "/readyz", headers: [("Origin", GatewayDaemon.origin), ("Authorization", "Bearer \(reader)")])
        #expect(listed.status == 200 && listed.headers["access-control-allow-origin"] == GatewayDaemon.origin)
        let ownPage = try await client.request(
            "GET", "/readyz",
            headers: [("Origin", "http://\(client.hostHeader)"), ("Authorization", "Bearer \(reader)")])
        #expect(ownPage.status == 200, "the counter page the gateway served may call it")
        let tokensOwn = try await client.request(
            "GET", "/readyz", headers: [("Origin", "https://till.example"), ("Authorization", "Bearer \(withOrigin)")])
        #expect(tokensOwn.status == 200, "a token's origins are allowed with it")
        let otherTokens = try await client.request(
            "GET", "/readyz", headers: [("Origin", "https://till.example"), ("Authorization", "Bearer \(reader)")])
        #expect(otherTokens.status == 403)

        let preflight = try await client.request(
            "OPTIONS", "/v1/rpc",
            headers: [
                ("Origin", GatewayDaemon.origin), ("Access-Control-Request-Method", "POST"),
                ("Access-Control-Request-Headers", "authorization, content-type"),
            ])
        #expect(preflight.status == 204 && preflight.headers["access-control-allow-origin"] == GatewayDaemon.origin)
        #expect(preflight.headers["access-control-allow-headers"]?.contains("Authorization") == true)
        let foreignPreflight = try await client.request("OPTIONS", "/v1/rpc", headers: [("Origin", "https://evil.example")])
        #expect(foreignPreflight.status == 403 && foreignPreflight.errorCode == "forbidden_origin")

        let forbidden = try await client.rpc(
            #"{"jsonrpc":"2.0","id":7,"method":"mock.attach","params":{"kind":"qr"}}"#, token: reader)
        #expect(forbidden.status == 200 && forbidden.json?["error"]?["code"] == -32003, "\(forbidden)")

        let upgrade = try #require(try await client.webSocket("/v1/ws").refusal())
        #expect(upgrade.status == 401 && upgrade.errorCode == "unauthorized")
        let foreignUpgrade = try #require(
            try await client.webSocket("/v1/ws?access_token=\(reader)", headers: [("Origin", "https://evil.example")])
                .refusal())
        #expect(foreignUpgrade.status == 403)
        let stream = try #require(try await client.events("/v1/events").refusal())
        #expect(stream.status == 401)
        #expect(!gateway.daemon.log.contains(reader.dropFirst(4)), "no secret in the log")
        try await gateway.stop()
    }

    /// `--allow-origin` adds to http.origins, checked as they are.
    @Test func anOriginAllowedOnTheCommandLineMayCall() async throws {
        let gateway = try await GatewayDaemon.start(
            ["--mock", "barcode:till-1", "--allow-origin", "http://localhost:5173"], origins: [])
        let (reader, _) = try await gateway.token("reader")
        let allowed = try await gateway.client.request(
            "GET", "/readyz", headers: [("Origin", "http://localhost:5173"), ("Authorization", "Bearer \(reader)")])
        #expect(allowed.status == 200 && allowed.headers["access-control-allow-origin"] == "http://localhost:5173")
        let other = try await gateway.client.request(
            "GET", "/readyz", headers: [("Origin", "http://localhost:5174"), ("Authorization", "Bearer \(reader)")])
        #expect(other.status == 403)
        try await gateway.stop()

        let refused = try await run("scanbridged", ["--allow-origin", "null", "--http", "127.0.0.1:0", "--drivers", "mock"])
        #expect(refused.status != 0 && refused.err.contains("--allow-origin"), "\(refused.err)")
    }

    @Test func aWebSocketIsAConnectionLikeTheSocketsOwn() async throws {
        let gateway = try await GatewayDaemon.start()
        let (secret, _) = try await gateway.token("admin")
        let socket = try await gateway.client.webSocket("/v1/ws?access_token=\(secret)").opened()
        try await socket.send(text: #"{"jsonrpc":"2.0","id":1,"method":"bridge.hello"}"#)
        #expect(try JSONValue(parsing: Array(try await socket.receiveText().utf8))["result"]?["role"] == "admin")
        try await socket.send(text: #"{"jsonrpc":"2.0","id":2,"method":"events.subscribe"}"#)
        #expect(try JSONValue(parsing: Array(try await socket.receiveText().utf8))["result"]?["subscription"] == "s1")
        try await socket.send(
            text: #"{"jsonrpc":"2.0","id":3,"method":"scan.inject","params":{"device":"mock:till-1","text":"4006381333931"}}"#)
        var sawScan = false
        var sawAnswer = false
        while !(sawScan && sawAnswer) {
            let message = try JSONValue(parsing: Array(try await socket.receiveText().utf8))
            if message["method"] == "scan" { sawScan = message["params"]?["event"]?["text"] == "4006381333931" }
            if message["id"] == 3 { sawAnswer = message["result"]?["event"] != nil }
        }
        // A message in fragments is one message; a ping is answered with its payload.
        let fragmented = Array(#"{"jsonrpc":"2.0","id":4,"method":"devices.list"}"#.utf8)
        try await socket.send(.init(fin: false, opcode: WebSocketClient.text, payload: Array(fragmented[..<10])))
        try await socket.send(.init(fin: true, opcode: WebSocketClient.continuation, payload: Array(fragmented[10...])))
        #expect(try JSONValue(parsing: Array(try await socket.receiveText().utf8))["id"] == 4)
        try await socket.send(.init(fin: true, opcode: WebSocketClient.ping, payload: Array("hi".utf8)))
        let pong = try await socket.receiveFrame()
        #expect(pong.opcode == WebSocketClient.pong && pong.text == "hi")
        try await socket.send(.init(fin: true, opcode: WebSocketClient.binary, payload: [1, 2, 3]))
        #expect(try await socket.closeCode() == 1003)

        let large = try await gateway.client.webSocket("/v1/ws?access_token=\(secret)").opened()
        // The daemon may close before the whole frame is sent.
        try? await large.send(text: String(repeating: " ", count: 70_000))
        #expect(try await large.closeCode() == 1009)
        let pieces = try await gateway.client.webSocket("/v1/ws?access_token=\(secret)").opened()
        for piece in 0..<3 {
            let opcode = piece == 0 ? WebSocketClient.text : WebSocketClient.continuation
            try? await pieces.send(.init(fin: false, opcode: opcode, payload: Array(repeating: 0x20, count: 30_000)))
        }
        let piecesCode = try await pieces.closeCode()
        #expect(piecesCode == 1009, "fragments add up to the same bound")
        try await gateway.stop()
    }

    @Test func anEventStreamResumesAcrossARestartWithNothingMissedOrRepeated() async throws {
        let first = try await GatewayDaemon.start()
        let (secret, _) = try await first.token("operator")
        for n in 1...3 { _ = try await first.admin.inject(device: "mock:till-1", text: "item-\(n)") }
        let stream = try await first.client.events("/v1/events?since=0&kinds=barcode&access_token=\(secret)").opened()
        #expect(stream.headers["content-type"] == "text/event-stream; charset=utf-8")
        var ids: [String] = []
        for _ in 1...2 {
            let event = try #require(try await stream.next())
            #expect(event.event == "scan")
            #expect(try JSONValue(parsing: Array(event.data.utf8))["seq"]?.intValue.map(String.init) == event.id)
            ids.append(event.id ?? "")
        }
        #expect(ids == ["1", "2"])
        await stream.close()
        let port = first.client.port
        try await first.stop()

        let second = try await GatewayDaemon.start(listen: "127.0.0.1:\(port)", reusing: first.daemon)
        for n in 4...5 { _ = try await second.admin.inject(device: "mock:till-1", text: "item-\(n)") }
        // As a reconnecting EventSource does: the same URL, and Last-Event-ID, which wins.
        let resumed = try await second.client.events(
            "/v1/events?since=0&kinds=barcode&access_token=\(secret)", headers: [("Last-Event-ID", "2")]
        ).opened()
        var after: [String] = []
        for _ in 3...5 { after.append(try #require(try await resumed.next()).id ?? "") }
        #expect(after == ["3", "4", "5"])
        _ = try await second.admin.call("mock.attach", ["kind": "qr", "id": "door"])
        _ = try await second.admin.inject(device: "mock:till-1", text: "item-6")
        let next = try #require(try await resumed.next())
        #expect(next.id == "6", "a qr device's notice is filtered out by kinds=barcode")
        await resumed.close()
        try await second.stop()
    }

    @Test func aSlowEventStreamReaderOverflowsAndTheStreamEnds() async throws {
        let gateway = try await GatewayDaemon.start(server: "  subscription_queue: 16\n  connection_buffer_bytes: 65536")
        let (secret, _) = try await gateway.token("admin")
        let slow = try await gateway.client.events("/v1/events?access_token=\(secret)", reading: false).opened()
        // Until the daemon counts the overflow: what the kernel's socket buffers hold before
        // the stream's own bound is reached varies with the machine, so no count is fixed.
        func overflowed() async throws -> Bool {
            let metrics = try await gateway.client.request("GET", "/metrics?access_token=\(secret)").text
            return metrics.split(separator: "\n").contains {
                $0.hasPrefix("scanbridge_subscription_overflows_total ") && !$0.hasSuffix(" 0")
            }
        }
        var injected = 0
        while try await !overflowed() {
            try #require(injected < 40_000, "no overflow after \(injected) scans")
            try await injectConcurrently(500, into: gateway.daemon)
            injected += 500
        }
        try await slow.startReading()
        var last: EventStreamReader.Event?
        while let event = try await slow.next(timeout: .seconds(60)) { last = event }
        #expect(last?.event == "overflow", "the stream ends with event: overflow")
        #expect((try? JSONValue(parsing: Array((last?.data ?? "").utf8)))?["dropped"]?.intValue ?? 0 > 0)
        try await gateway.stop()
    }

    @Test func revokingATokenClosesItsWebSocketsAndStreams() async throws {
        let gateway = try await GatewayDaemon.start()
        let (secret, id) = try await gateway.token("reader")
        let socket = try await gateway.client.webSocket("/v1/ws?access_token=\(secret)").opened()
        let stream = try await gateway.client.events("/v1/events?access_token=\(secret)").opened()
        try await socket.send(text: #"{"jsonrpc":"2.0","id":1,"method":"bridge.hello"}"#)
        _ = try await socket.receiveText()
        _ = try await gateway.admin.call("tokens.revoke", ["id": .string(id)])
        #expect(try await socket.closeCode() == 1008, "closed as a policy violation")
        #expect(try await stream.next() == nil, "the stream ended")
        let after = try await gateway.client.rpc(#"{"jsonrpc":"2.0","id":1,"method":"bridge.hello"}"#, token: secret)
        #expect(after.status == 401)
        try await gateway.stop()
    }

    /// NIO's HTTP decoder parses nothing after a request that asks for an upgrade: a client
    /// with no token that asks for one it does not get (no token, or any page but `/v1/ws`)
    /// and then sends bytes without end would have them kept. Its answer ends the connection.
    @Test(arguments: ["/v1/ws", "/app.mjs"])
    func aRequestForAnUpgradeNotGivenEndsItsConnection(path: String) async throws {
        let gateway = try await GatewayDaemon.start()
        let pid = try #require(gateway.daemon.pid)
        let rss = ProcessStat.megabytes("VmRSS", of: pid)
        let client = try await gateway.client.connect()
        try await client.send(
            Array(
                ("GET \(path) HTTP/1.1\r\nHost: \(gateway.client.hostHeader)\r\nUpgrade: websocket\r\n"
                    + "Connection: Upgrade\r\nSec-WebSocket-Key: c2NhbmJyaWRnZS1iZW5jaA==\r\nSec-WebSocket-Version: 13\r\n\r\n")
                    .utf8))
        let junk = [UInt8](repeating: 0x78, count: 1 << 20)
        var sent = 0
        while sent < 256 << 20 {
            do {
                try await within("the daemon to take 1 MiB more", timeout: .seconds(5)) { try await client.send(junk) }
            } catch {
                break
            }
            sent += junk.count
        }
        #expect(sent < 256 << 20, "the daemon took \(sent) bytes after the request")
        let answer = String(decoding: try await within("the answer and the end") { await client.readToEnd() }, as: UTF8.self)
        #expect(answer.hasPrefix("HTTP/1.1 "), "\(answer.prefix(200))")
        #expect(answer.contains("Connection: close") || answer.contains("connection: close"))
        #expect(ProcessStat.megabytes("VmRSS", of: pid) <= rss + 32, "the daemon's memory grew by the bytes")
        #expect(try await gateway.client.request("GET", "/healthz").status == 200, "another client is answered")
        try await gateway.stop()
    }

    /// A client with no token pipelines requests and reads none of the answers: the daemon
    /// stops reading from it once its answers wait unread, so it can neither grow the daemon's
    /// memory nor keep anyone else waiting.
    @Test func aClientThatReadsNoAnswersIsNotReadFrom() async throws {
        let gateway = try await GatewayDaemon.start()
        // As large as the JavaScript client.
        try String(repeating: "export const x = 1;\n", count: 2000).write(
            to: gateway.daemon.directory.appendingPathComponent("web/large.mjs"), atomically: true, encoding: .utf8)
        let pid = try #require(gateway.daemon.pid)
        let rss = ProcessStat.megabytes("VmRSS", of: pid)
        let hog = try await gateway.client.connect(reading: false)
        let requests = Array(
            String(repeating: "GET /large.mjs HTTP/1.1\r\nHost: \(gateway.client.hostHeader)\r\n\r\n", count: 500).utf8)
        // Far more than the socket buffers between the two hold.
        let bound = 64 << 20
        var sent = 0
        while sent < bound {
            do {
                try await within("the daemon to take 500 more requests", timeout: .seconds(5)) {
                    try await hog.send(requests)
                }
            } catch is TimedOut {
                break
            }
            sent += requests.count
        }
        #expect(sent < bound, "the daemon took \(sent) bytes of requests whose answers were never read")
        #expect(try await gateway.client.request("GET", "/healthz").status == 200, "another client is answered")
        #expect(ProcessStat.megabytes("VmRSS", of: pid) <= rss + 32, "the daemon's memory grew by the unread answers")
        await hog.close()
        try await gateway.stop()
    }

    /// Even an admin token cannot manage tokens or the shop's store over the network: a
    /// leaked one would otherwise mint tokens that outlive its revocation.
    @Test func tokensAndTheStoreAreManagedOnTheSocketOnly() async throws {
        let gateway = try await GatewayDaemon.start()
        let (secret, _) = try await gateway.token("admin")
        for method in ["tokens.create", "tokens.list", "tokens.revoke", "store.migrate"] {
            let reply = try await gateway.client.rpc(
                #"{"jsonrpc":"2.0","id":1,"method":"\#(method)","params":{"name":"minted","role":"admin"}}"#,
                token: secret)
            #expect(reply.json?["error"]?["code"] == -32003, "\(method) over HTTP: \(reply)")
        }
        let socket = try await gateway.client.webSocket("/v1/ws?access_token=\(secret)").opened()
        try await socket.send(
            text: #"{"jsonrpc":"2.0","id":2,"method":"tokens.create","params":{"name":"minted","role":"admin"}}"#)
        #expect(try await socket.receiveText().contains("-32003"), "tokens.create over a WebSocket")
        await socket.close()
        let listed = try await gateway.admin.call("tokens.list")
        #expect(listed["tokens"]?.arrayValue?.count == 1, "no token was made over the network")
        try await gateway.stop()
    }

    @Test func maxConnectionsBoundsAllAndSparesTheOpenOnes() async throws {
        let gateway = try await GatewayDaemon.start(http: "  max_connections: 2")
        let (secret, _) = try await gateway.token("admin")
        let socket = try await gateway.client.webSocket("/v1/ws?access_token=\(secret)").opened()
        let stream = try await gateway.client.events("/v1/events?access_token=\(secret)").opened()
        let refused = try await gateway.client.request("GET", "/healthz")
        #expect(refused.status == 503 && refused.errorCode == "overloaded", "\(refused)")
        try await socket.send(text: #"{"jsonrpc":"2.0","id":1,"method":"bridge.hello"}"#)
        #expect(try await socket.receiveText().contains("\"result\""), "the open WebSocket still works")
        await stream.close()
        await socket.close()
        try await waitUntil("a connection's place to be given back") {
            try await gateway.client.request("GET", "/healthz").status == 200
        }
        try await gateway.stop()
    }

    @Test func aStopClosesOpenWebSocketsAndStreamsCleanly() async throws {
        let gateway = try await GatewayDaemon.start(http: "  metrics_public: true")
        let metrics = try await gateway.client.request("GET", "/metrics")
        #expect(metrics.status != 401, "http.metrics_public serves /metrics without a token")
        let (secret, _) = try await gateway.token("operator")
        let socket = try await gateway.client.webSocket("/v1/ws?access_token=\(secret)").opened()
        try await socket.send(text: #"{"jsonrpc":"2.0","id":1,"method":"events.subscribe"}"#)
        _ = try await socket.receiveText()
        let stream = try await gateway.client.events("/v1/events?access_token=\(secret)").opened()
        let counted = try await gateway.client.request("GET", "/metrics")
        #expect(counted.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        for transport in ["websocket", "sse", "http"] {
            #expect(counted.text.contains(#"scanbridge_connections{transport="\#(transport)"} 1"#), "\(transport)")
        }
        #expect(counted.text.contains(#"scanbridge_requests_refused_total{reason="unauthorized"}"#))
        // A WebSocket that reads nothing, the socket buffers between it and the daemon full of
        // its events, must not hold the stop.
        let stalled = try await gateway.client.webSocket("/v1/ws?access_token=\(secret)", reading: false).opened()
        try await stalled.send(text: #"{"jsonrpc":"2.0","id":1,"method":"events.subscribe"}"#)
        let injector = try await RawConnection.connect(socketPath: gateway.daemon.socketPath)
        let label = String(repeating: "S", count: 2_000)
        let scan = #"{"jsonrpc":"2.0","method":"scan.inject","params":{"device":"mock:till-1","text":"\#(label)"}}"#
        for _ in 0..<400 {
            try await injector.send("[" + Array(repeating: scan, count: 16).joined(separator: ",") + "]")
        }
        try await waitUntil("the scans to be journaled") {
            let recent = try await gateway.admin.call("events.recent", ["limit": 1])
            return recent["events"]?.arrayValue?.last?["seq"]?.intValue ?? 0 >= 6_400
        }
        // The reading WebSocket takes what it was sent first, so that the close frame waits
        // behind nothing of its own at the stop, however slowly this machine reads.
        while true {
            let message = try await socket.receiveText()
            if message.contains(#""seq":6400"#) || message.contains("events.overflow") { break }
        }
        await injector.close()
        await gateway.admin.close()
        #expect(try await gateway.daemon.stop() == 0, "a clean exit with all three open")
        #expect(!gateway.daemon.log.contains("Cannot schedule tasks"), "no task was left to loops shut down")
        #expect(try await socket.closeCode() == 1001, "the WebSocket is told the daemon is going away")
        while try await stream.next() != nil {}  // the events it was sent, then its end
    }

    /// An idle event stream gets keep-alives and stays open; a connection that asks nothing
    /// gives its place back.
    @Test func idleStreamsAreKeptAliveAndIdleConnectionsClosed() async throws {
        let gateway = try await GatewayDaemon.start()
        let (secret, _) = try await gateway.token("reader")
        let stream = try await gateway.client.events("/v1/events?access_token=\(secret)").opened()
        let idle = try await gateway.client.connect()
        // The idle timeout is twice the keep-alive's interval: by the close, the stream has had one.
        let sent = try await within("the idle connection closed by the daemon", timeout: .seconds(90)) {
            await idle.readToEnd()
        }
        #expect(sent.isEmpty, "closed without a byte")
        _ = try await gateway.admin.inject(device: "mock:till-1", text: "4006381333931")
        #expect(try await stream.next()?.event == "scan", "the stream outlived the idle timeout")
        #expect(stream.comments >= 1, "keep-alive comments came before the scan")
        try await gateway.stop()
    }

    @Test func anAddressTakenOrMalformedStopsTheDaemonWithItsReason() async throws {
        let gateway = try await GatewayDaemon.start()
        let taken = try DaemonHarness(arguments: ["--http", gateway.daemon.gatewayAddresses[0]])
        let busy = await #expect(throws: DaemonHarness.Failure.self) { try await taken.start() }
        #expect(busy?.description.contains("the gateway cannot listen") == true, "\(busy?.description ?? "")")
        let malformed = try DaemonHarness(arguments: ["--http", "8765"])
        let refused = await #expect(throws: DaemonHarness.Failure.self) { try await malformed.start() }
        #expect(refused?.description.contains("'8765' is not an address to listen on") == true)
        try await gateway.stop()
    }

    /// `http.origins` is read as a browser writes `Origin`: a mis-cased entry with the
    /// default port matches, and `null` or anything not an origin stops the daemon.
    @Test func originsAreNormalizedWhenReadAndRefusedWhenInvalid() async throws {
        let gateway = try await GatewayDaemon.start(origins: ["HTTPS://Till.Example:443"])
        let (secret, _) = try await gateway.token("reader")
        let call = #"{"jsonrpc":"2.0","id":1,"method":"bridge.hello"}"#
        let allowed = try await gateway.client.rpc(call, token: secret, headers: [("Origin", "https://till.example")])
        #expect(allowed.status == 200, "\(allowed)")
        try await gateway.stop()
        for (entry, reason) in [("null", "is not scheme://host[:port]"), ("https://till.example/", "has a path")] {
            let base = try DaemonHarness(arguments: [])
            let config = try base.write("scanbridge.yaml", "http:\n  origins: [\"\(entry)\"]\n")
            let daemon = try DaemonHarness.reusing(base, arguments: ["--http", "127.0.0.1:0", "--config", config])
            let refused = await #expect(throws: DaemonHarness.Failure.self) { try await daemon.start() }
            #expect(refused?.description.contains("http.origins: '\(entry)' \(reason)") == true, "\(refused?.description ?? "")")
        }
    }

    @Test func listeningBeyondLoopbackWithoutTLSIsWarnedOf() async throws {
        let gateway = try await GatewayDaemon.start(listen: "0.0.0.0:0")
        #expect(gateway.daemon.log.contains("without TLS"), "a warning at start")
        try await gateway.stop()
        let local = try await GatewayDaemon.start()
        #expect(!local.daemon.log.contains("without TLS"), "none on loopback")
        try await local.stop()
    }

    @Test func tlsServesTheSameEndpoints() async throws {
        let base = try DaemonHarness(arguments: [])
        let certificate = base.directory.appendingPathComponent("gateway.pem").path
        let key = base.directory.appendingPathComponent("gateway.key").path
        let openssl = try Process.run(
            URL(fileURLWithPath: "/usr/bin/openssl"),
            arguments: [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate, "-days", "2",
                "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
            ])
        // Waited for without blocking a thread of the pool the other suites share.
        try await waitUntil("openssl to make the certificate") { openssl.hasEnded }
        #expect(openssl.endStatus == 0)
        // A key other users may read is refused.
        chmod(key, 0o644)
        let other = try DaemonHarness(arguments: [])
        let config = try other.write(
            "scanbridge.yaml", "http:\n  tls:\n    certificate: \(certificate)\n    key: \(key)\n")
        let open = try DaemonHarness.reusing(other, arguments: ["--http", "127.0.0.1:0", "--config", config])
        let refused = await #expect(throws: DaemonHarness.Failure.self) { try await open.start() }
        #expect(refused?.description.contains("http.tls.key \(key) has mode 644") == true, "\(refused?.description ?? "")")
        chmod(key, 0o600)
        let gateway = try await GatewayDaemon.start(
            http: "  tls:\n    certificate: \(certificate)\n    key: \(key)", certificate: certificate, reusing: base)
        let (secret, _) = try await gateway.token("admin")
        #expect(try await gateway.client.request("GET", "/healthz").status == 200)
        let socket = try await gateway.client.webSocket("/v1/ws?access_token=\(secret)").opened()
        try await socket.send(text: #"{"jsonrpc":"2.0","id":1,"method":"bridge.hello"}"#)
        #expect(try await socket.receiveText().contains("\"admin\""))
        let plain = try GatewayClient(address: gateway.daemon.gatewayAddresses[0])
        #expect((try? await plain.request("GET", "/healthz", timeout: .seconds(5)))?.status != 200)
        // A TLS client that reads nothing never answers the daemon's close: it must not hold
        // the stop.
        let silent = try await gateway.client.webSocket("/v1/ws?access_token=\(secret)").opened()
        try await silent.stopReading()
        await gateway.admin.close()
        #expect(try await gateway.daemon.stop() == 0, "a clean exit beside a TLS client that answers nothing")
        await silent.close()
    }
}
