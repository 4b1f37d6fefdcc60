import NIOCore
import NIOHTTP1
import ScanBridgeModel
import ScanBridgeServer

/// A whole HTTP answer of the gateway. Every refusal carries the same JSON body:
/// `{"error": {"code": "unauthorized", "message": "…"}}`, `code` a word a program can test
/// and `message` a sentence saying what to do (docs/protocol.md, Web and network access).
struct GatewayResponse: Sendable {
    var status: HTTPResponseStatus
    var headers: HTTPHeaders
    var body: [UInt8]
    /// Called once the answer is written to the socket, or its connection is gone: what
    /// counted it (`GatewayConnections.claimAnswer`) counts it no more.
    var written: (@Sendable () -> Void)?

    init(status: HTTPResponseStatus, contentType: String, body: [UInt8], headers: HTTPHeaders = [:]) {
        self.status = status
        self.headers = headers
        self.headers.replaceOrAdd(name: "Content-Type", value: contentType)
        self.body = body
    }

    static func json(_ status: HTTPResponseStatus, _ body: [UInt8]) -> GatewayResponse {
        GatewayResponse(status: status, contentType: "application/json", body: body)
    }

    /// A refusal: `code` is one of `bad_request`, `unauthorized`, `forbidden`, `not_found`,
    /// `method_not_allowed`, `too_large`, `unsupported_media_type`, `upgrade_required`,
    /// `overloaded`, `unavailable`.
    static func refusal(_ status: HTTPResponseStatus, _ code: String, _ message: String) -> GatewayResponse {
        var body = Array(#"{"error":{"code":"#.utf8)
        JSONOutput.appendString(code, to: &body)
        body.append(contentsOf: #","message":"#.utf8)
        JSONOutput.appendString(message, to: &body)
        body.append(contentsOf: "}}".utf8)
        return json(status, body)
    }

    /// A `503` for a bound the gateway is at: `reason` says which, and what to do.
    static func overloaded(_ reason: String) -> GatewayResponse {
        refusal(.serviceUnavailable, "overloaded", "overloaded: \(reason)")
    }

    /// The whole answer as HTTP/1.1 bytes, the connection closed after it: for a connection
    /// answered without an HTTP pipeline.
    var closingBytes: [UInt8] {
        var text = "HTTP/1.1 \(status.code) \(status.reasonPhrase)\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        text += "Content-Length: \(body.count)\r\nConnection: close\r\nCache-Control: no-store\r\n"
        text += "X-Content-Type-Options: nosniff\r\n\r\n"
        return Array(text.utf8) + body
    }

    static let noContent = GatewayResponse(status: .noContent, contentType: "application/json", body: [])
}
