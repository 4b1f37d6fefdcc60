import Foundation
import NIOHTTP1
import ScanBridgeRPC
import ScanBridgeServer
import Synchronization

/// Decides who may make a request, in the protocol's order: `Host`, then `Origin`, then the
/// token (docs/protocol.md, Web and network access). The role is applied later, per method,
/// exactly as on the Unix socket.
final class GatewayAccess: Sendable {
    enum Verdict: Sendable {
        /// Allowed; the token, when the request needed one.
        case allowed(AuthenticatedToken?)
        case refused(GatewayResponse)
    }

    private let settings: GatewaySettings
    private let tokens: (any TokenAuthority)?
    /// The addresses actually bound (a port 0 is known only then).
    private let bound = Mutex<[GatewayAddress]>([])

    init(settings: GatewaySettings, tokens: (any TokenAuthority)?) {
        self.settings = settings
        self.tokens = tokens
    }

    func listening(on addresses: [GatewayAddress]) {
        bound.withLock { $0 = addresses }
    }

    /// The verdict on a request; `needsToken` is false for the page, its files and `/healthz`.
    func check(_ request: GatewayRequest, needsToken: Bool) async -> Verdict {
        guard let host = request.head.headers.first(name: "Host"), allows(host: host) else {
            return .refused(
                .refusal(
                    .forbidden, "forbidden_host",
                    "forbidden: the Host header must name the address the gateway listens on or one of http.hosts in the daemon's config"
                ))
        }
        let origin = request.origin
        let originListed = origin.map { settings.origins.contains($0) || isOwn(origin: $0, host: host) } ?? true
        guard needsToken else {
            return originListed ? .allowed(nil) : .refused(Self.forbiddenOrigin(origin ?? ""))
        }
        guard let tokens else {
            return .refused(
                .refusal(
                    .serviceUnavailable, "unavailable",
                    "unavailable: this daemon keeps no access tokens, so nothing that needs one can be served"))
        }
        // A page from an unlisted origin learns only that: never whether its token was good.
        func unauthorized(_ message: String) -> Verdict {
            .refused(originListed ? .refusal(.unauthorized, "unauthorized", message) : Self.forbiddenOrigin(origin ?? ""))
        }
        let token: AuthenticatedToken?
        switch request.credential {
        case nil, .secret("", _):
            return unauthorized(
                "unauthorized: send an access token as 'Authorization: Bearer <secret>' or the access_token query parameter; an admin makes one with 'scanbridge tokens create'"
            )
        case .secret(_, inQuery: true) where !settings.queryTokens:
            return unauthorized(
                "unauthorized: this daemon takes no token in the URL (http.query_tokens is off): send it as 'Authorization: Bearer <secret>', as the WebSocket subprotocol '\(GatewayRequest.bearerProtocolPrefix)<secret>', or open an event stream with a ticket from events.ticket"
            )
        case .secret(let secret, _):
            token = await tokens.authenticate(secret: secret)
        case .ticket(let ticket):
            token = Self.streamPaths.contains(request.path) ? await tokens.redeem(ticket: ticket) : nil
        }
        guard let token else {
            return unauthorized(
                "unauthorized: the access token (or the stream's ticket) is unknown, expired, used or revoked; ask an admin for a new token, or events.ticket for a new ticket"
            )
        }
        if let origin, !originListed, !token.origins.contains(origin) { return .refused(Self.forbiddenOrigin(origin)) }
        return .allowed(token)
    }

    /// The paths a ticket opens: the streams, which a browser cannot send a header to.
    static let streamPaths: Set<String> = ["/v1/events", "/v1/ws"]

    /// The gateway's own origin, that of the counter page it serves: a browser sends it only
    /// from a page the gateway served, at the host the checks above allowed.
    private func isOwn(origin: String, host: String) -> Bool {
        origin.lowercased() == (settings.tls == nil ? "http://" : "https://") + host.lowercased()
    }

    private static func forbiddenOrigin(_ origin: String) -> GatewayResponse {
        .refusal(
            .forbidden, "forbidden_origin",
            "forbidden: pages from origin '\(origin)' may not call the gateway; add it to http.origins in the daemon's config or to the token's origins"
        )
    }

    /// Whether a `Host` header names a listening address or one of `http.hosts`. An IP literal
    /// is accepted on a wildcard listener, and `localhost` on a loopback one: a browser can be
    /// turned to neither by DNS rebinding.
    func allows(host header: String) -> Bool {
        guard let (name, port) = Self.split(host: header) else { return false }
        for entry in settings.hosts {
            guard let (allowedName, allowedPort) = Self.split(host: entry) else { continue }
            if allowedName == name && (allowedPort == nil || allowedPort == port) { return true }
        }
        return bound.withLock { $0 }.contains { address in
            guard port == nil || port == address.port else { return false }
            let listened = address.host.lowercased()
            if listened == name { return true }
            if Self.isWildcard(listened) { return Self.isIPLiteral(name) }
            return Self.isLoopback(listened) && (name == "localhost" || Self.isLoopback(name))
        }
    }

    /// A `Host` value's name (lowercased, without brackets or a final dot) and its port.
    static func split(host: String) -> (name: String, port: Int?)? {
        let text = host.trimmingCharacters(in: .whitespaces).lowercased()
        guard !text.isEmpty else { return nil }
        var name: Substring
        var port: Int?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            name = text[text.index(after: text.startIndex)..<close]
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let number = Int(rest.dropFirst()) else { return nil }
                port = number
            }
        } else if let colon = text.lastIndex(of: ":") {
            guard !text[..<colon].contains(":"), let number = Int(text[text.index(after: colon)...]) else {
                return nil
            }
            name = text[..<colon]
            port = number
        } else {
            name = text[...]
        }
        if name.hasSuffix(".") { name = name.dropLast() }
        return name.isEmpty ? nil : (String(name), port)
    }

    private static func isWildcard(_ host: String) -> Bool { host == "0.0.0.0" || host == "::" }

    static func isLoopback(_ host: String) -> Bool { host == "::1" || host.hasPrefix("127.") }

    private static func isIPLiteral(_ host: String) -> Bool {
        host.contains(":") || host.split(separator: ".").count == 4 && host.allSatisfy { $0.isNumber || $0 == "." }
    }
}
