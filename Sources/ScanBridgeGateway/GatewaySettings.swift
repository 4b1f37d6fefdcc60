import Foundation
import ScanBridgeServer

/// What the gateway serves, and to whom (docs/protocol.md, Web and network access).
package struct GatewaySettings: Sendable {
    /// The addresses to listen on; none means the gateway is off.
    package var listen: [GatewayAddress]
    /// Origins a browser page may call from, beside each token's own.
    package var origins: Set<String>
    /// Host names a request's `Host` may name, beside the listening addresses.
    package var hosts: [String]
    /// Connections open at once over every listener and transport.
    package var maxConnections: Int
    /// Of them, connections from one address.
    package var maxConnectionsPerAddress: Int
    /// WebSockets and event streams one token may hold open at once.
    package var maxStreamsPerToken: Int
    /// How long a connection may send no request, or take none of its answers; a WebSocket
    /// is pinged halfway through and closed at the end.
    package var idleTimeout: Duration
    /// How long a request (or a TLS handshake) may take from its first byte to its last.
    package var requestTimeout: Duration
    /// `GET /metrics` without a token.
    package var metricsPublic: Bool
    /// A token's secret taken from the `access_token` query parameter, which proxies' logs
    /// and browsers' histories keep. On by default: the wire contract has it. Off, a secret
    /// comes in a header (`Authorization`, or a WebSocket's `Sec-WebSocket-Protocol`) and a
    /// browser's EventSource uses a ticket (`events.ticket`).
    package var queryTokens = true
    /// The folder of the counter page's files.
    package var webRoot: String
    /// PEM files; both or neither.
    package var tls: (certificate: String, key: String)?

    package init(
        listen: [GatewayAddress], origins: [String] = [], hosts: [String] = [], maxConnections: Int = 256,
        maxConnectionsPerAddress: Int = 64, maxStreamsPerToken: Int = 32, idleTimeout: Duration = .seconds(30),
        requestTimeout: Duration = .seconds(10),
        metricsPublic: Bool = false, webRoot: String, tls: (certificate: String, key: String)? = nil
    ) {
        self.listen = listen
        self.origins = Set(origins)
        self.hosts = hosts
        self.maxConnections = maxConnections
        self.maxConnectionsPerAddress = maxConnectionsPerAddress
        self.maxStreamsPerToken = maxStreamsPerToken
        self.idleTimeout = idleTimeout
        self.requestTimeout = requestTimeout
        self.metricsPublic = metricsPublic
        self.webRoot = webRoot
        self.tls = tls
    }
}

/// `ADDRESS:PORT`, with an IPv6 address in brackets (`[::1]:8765`); port 0 picks a free port.
package struct GatewayAddress: Sendable, Hashable, CustomStringConvertible {
    package var host: String
    package var port: Int

    package init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses the option's or the config's form; nil when it is not one.
    package init?(parsing text: String) {
        let host: Substring
        let port: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            port = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else { return nil }
            host = text[..<colon]
            port = text[text.index(after: colon)...]
        }
        guard !host.isEmpty, let number = Int(port), (0...65_535).contains(number) else { return nil }
        self.host = String(host)
        self.port = number
    }

    package var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
