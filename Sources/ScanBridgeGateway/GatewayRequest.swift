import Foundation
import NIOCore
import NIOHTTP1
import ScanBridgeServer

/// One HTTP request as the gateway routes it: its path and query apart, the query decoded.
struct GatewayRequest: Sendable {
    let head: HTTPRequestHead
    let body: ByteBuffer?
    /// The path without its query, percent-decoded.
    let path: String
    let query: [String: String]

    init(head: HTTPRequestHead, body: ByteBuffer?) {
        self.head = head
        self.body = body
        let target = head.uri
        let questionMark = target.firstIndex(of: "?")
        let rawPath = questionMark.map { target[..<$0] } ?? target[...]
        path = String(rawPath).removingPercentEncoding ?? String(rawPath)
        var query: [String: String] = [:]
        if let questionMark {
            for pair in target[target.index(after: questionMark)...].split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = Self.decode(parts[0])
                // The first of a repeated parameter counts.
                if query[name] == nil { query[name] = parts.count > 1 ? Self.decode(parts[1]) : "" }
            }
        }
        self.query = query
    }

    private static func decode(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }

    var method: HTTPMethod { head.method }

    /// The `Origin` header, when the request has one.
    var origin: String? { head.headers.first(name: "Origin") }

    /// How a request names its access token.
    enum Credential: Equatable {
        /// The token's secret; `inQuery` when it came as the `access_token` parameter.
        case secret(String, inQuery: Bool)
        /// A ticket for a stream (`events.ticket`), in the `ticket` parameter.
        case ticket(String)
    }

    /// The subprotocol a WebSocket client asks for, and the gateway names in its answer.
    static let webSocketProtocol = "scanbridge"
    /// A subprotocol offered beside it carries the token's secret after this prefix: a
    /// browser's WebSocket can send no other header, and the URL is logged where it passes.
    static let bearerProtocolPrefix = "scanbridge.bearer."

    /// The request's credential, in this order: `Authorization: Bearer`, the WebSocket
    /// subprotocol, a ticket, the `access_token` parameter.
    var credential: Credential? {
        if let authorization = head.headers.first(name: "Authorization") {
            let parts = authorization.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer" {
                return .secret(parts[1].trimmingCharacters(in: .whitespaces), inQuery: false)
            }
        }
        if let offered = webSocketProtocols.first(where: { $0.hasPrefix(Self.bearerProtocolPrefix) }) {
            return .secret(String(offered.dropFirst(Self.bearerProtocolPrefix.count)), inQuery: false)
        }
        if let ticket = query["ticket"] { return .ticket(ticket) }
        return query["access_token"].map { .secret($0, inQuery: true) }
    }

    /// The subprotocols of `Sec-WebSocket-Protocol`, in the client's order.
    var webSocketProtocols: [String] {
        head.headers["Sec-WebSocket-Protocol"].flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// The request asks to leave HTTP (`Upgrade`, or `CONNECT`). NIO's decoder parses nothing
    /// after such a request, whether or not it is upgraded, and would keep every byte that
    /// follows: its answer ends the connection.
    var asksForUpgrade: Bool { head.method == .CONNECT || head.headers.contains(name: "Upgrade") }

    /// What may be logged of the request: its method and path, never its query (it may hold a token).
    var logDescription: String { "\(head.method) \(path)" }
}
