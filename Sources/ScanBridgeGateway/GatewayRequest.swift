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

    /// The secret of the request's access token: `Authorization: Bearer`, else `access_token`.
    var tokenSecret: String? {
        if let authorization = head.headers.first(name: "Authorization") {
            let parts = authorization.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer" {
                return parts[1].trimmingCharacters(in: .whitespaces)
            }
        }
        return query["access_token"]
    }

    /// What may be logged of the request: its method and path, never its query (it may hold a token).
    var logDescription: String { "\(head.method) \(path)" }
}
