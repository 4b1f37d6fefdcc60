import Foundation
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeTesting
import Testing

/// The ways a gateway client names its token without the secret in a URL: a WebSocket's
/// subprotocol, and a stream's one-time ticket (docs/protocol.md, Web and network access);
/// and the `access_token` parameter turned off.
@Suite("Gateway credentials", .heavy, .timeLimit(.minutes(5)))
struct GatewayCredentialsTests {
    static func bearerProtocols(_ secret: String) -> [(String, String)] {
        [("Sec-WebSocket-Protocol", "scanbridge, scanbridge.bearer.\(secret)")]
    }

    /// A new ticket of `secret`'s token, asked for over `POST /v1/rpc`.
    static func ticket(_ gateway: GatewayDaemon, secret: String) async throws -> (ticket: String, expiresAt: String) {
        let reply = try await gateway.client.rpc(#"{"jsonrpc":"2.0","id":1,"method":"events.ticket"}"#, token: secret)
        let result = try #require(reply.json?["result"], "\(reply)")
        return (try #require(result["ticket"]?.stringValue), try #require(result["expiresAt"]?.stringValue))
    }

    @Test func aWebSocketNamesItsTokenInItsSubprotocol() async throws {
        let gateway = try await GatewayDaemon.start()
        let (secret, _) = try await gateway.token("reader")
        let socket = try await gateway.client.webSocket("/v1/ws", headers: Self.bearerProtocols(secret)).opened()
        #expect(socket.headers["sec-websocket-protocol"] == "scanbridge", "the answer names the subprotocol, not the secret")
        try await socket.send(text: #"{"jsonrpc":"2.0","id":1,"method":"bridge.hello"}"#)
        #expect(try JSONValue(parsing: Array(try await socket.receiveText().utf8))["result"]?["role"] == "reader")
        await socket.close()

        let wrong = try await gateway.client.webSocket(
            "/v1/ws", headers: Self.bearerProtocols("sbt_" + String(repeating: "A", count: 43))
        ).refusal()
        #expect(wrong?.status == 401)
        #expect(!gateway.daemon.log.contains(secret.dropFirst(4)), "no secret in the log")
        try await gateway.stop()
    }

    @Test func anEventStreamOpensOnceWithATicket() async throws {
        let gateway = try await GatewayDaemon.start()
        let (secret, id) = try await gateway.token("reader")
        let (ticket, expiresAt) = try await Self.ticket(gateway, secret: secret)
        #expect(ticket.hasPrefix("sbk_") && ticket.count == 47)
        let expiry = try #require(EventTime.parse(expiresAt))
        #expect(expiry > Date() && expiry <= Date().addingTimeInterval(61))

        _ = try await gateway.admin.call("scan.inject", ["device": "mock:till-1", "text": "4006381333931"])
        let stream = try await gateway.client.events("/v1/events?since=0&ticket=\(ticket)").opened()
        #expect(try await stream.next()?.data.contains("4006381333931") == true)
        let again = try await gateway.client.events("/v1/events?ticket=\(ticket)").refusal()
        #expect(again?.status == 401, "a ticket opens one stream")

        // Streams only: not a call, nor the metrics.
        let (other, _) = try await Self.ticket(gateway, secret: secret)
        let call = try await gateway.client.request(
            "POST", "/v1/rpc?ticket=\(other)", headers: [("Content-Type", "application/json")],
            body: Array(#"{"jsonrpc":"2.0","id":1,"method":"bridge.hello"}"#.utf8))
        #expect(call.status == 401)
        // A ticket is worth no more than its token.
        let (orphan, _) = try await Self.ticket(gateway, secret: secret)
        _ = try await gateway.admin.call("tokens.revoke", ["id": .string(id)])
        #expect(try await gateway.client.events("/v1/events?ticket=\(orphan)").refusal()?.status == 401)
        #expect(!gateway.daemon.log.contains(ticket.dropFirst(4)), "no ticket in the log")
        try await gateway.stop()
    }

    @Test func aTicketIsForAGatewayToken() async throws {
        let gateway = try await GatewayDaemon.start()
        await expectRPCError(-32004) { _ = try await gateway.admin.call("events.ticket") }
        try await gateway.stop()
    }

    @Test func theQueryTokenCanBeTurnedOff() async throws {
        let gateway = try await GatewayDaemon.start(http: "  query_tokens: false")
        let (secret, _) = try await gateway.token("reader")
        let refused = try await gateway.client.events("/v1/events?access_token=\(secret)").refusal()
        #expect(refused?.status == 401 && refused?.text.contains("http.query_tokens") == true, "\(String(describing: refused))")
        #expect(try await gateway.client.webSocket("/v1/ws?access_token=\(secret)").refusal()?.status == 401)
        // The other ways still open them.
        let (ticket, _) = try await Self.ticket(gateway, secret: secret)
        let stream = try await gateway.client.events("/v1/events?ticket=\(ticket)").opened()
        await stream.close()
        let socket = try await gateway.client.webSocket("/v1/ws", headers: Self.bearerProtocols(secret)).opened()
        await socket.close()
        let bearer = try await gateway.client.events("/v1/events", headers: [("Authorization", "Bearer \(secret)")]).opened()
        await bearer.close()
        try await gateway.stop()
    }
}
