import ScanBridgeModel

/// The config file's `http:` section: the gateway's HTTP, WebSocket and Server-Sent Events
/// (docs/protocol.md, Web and network access), as the file gives it. The daemon makes the
/// `GatewaySettings` from it and its options (`--http`, the sockets systemd passed).
package struct GatewayConfig: Decodable, Sendable {
    /// `ADDRESS:PORT` to listen on; none means the gateway is off.
    package var listen: [String] = []
    /// Origins a browser page may call from, beside each token's own.
    package var origins: [String] = []
    /// Host names a request may name, beside the listening addresses.
    package var hosts: [String] = []
    package var maxConnections: Int? = nil
    package var maxConnectionsPerAddress: Int? = nil
    package var maxStreamsPerToken: Int? = nil
    /// The longest an access token may live, in days; 0 for no bound, none for the default.
    package var tokenMaxLifetimeDays: Int? = nil
    package var idleTimeoutMilliseconds: Int? = nil
    package var requestTimeoutMilliseconds: Int? = nil
    package var metricsPublic = false
    /// Whether a token's secret is taken from the `access_token` query parameter.
    package var queryTokens = true
    /// The counter page's files; the default is found next to the daemon (`GatewayWebRoot`).
    package var webRoot: String?
    package var tls = TLS()

    package struct TLS: Decodable, Sendable {
        /// PEM files: the certificate (chain) and its private key.
        package var certificate: String?
        package var key: String?
    }

    enum CodingKeys: String, CodingKey {
        case listen, origins, hosts
        case maxConnections = "max_connections"
        case maxConnectionsPerAddress = "max_connections_per_address"
        case maxStreamsPerToken = "max_streams_per_token"
        case tokenMaxLifetimeDays = "token_max_lifetime_days"
        case idleTimeoutMilliseconds = "idle_timeout_ms"
        case requestTimeoutMilliseconds = "request_timeout_ms"
        case metricsPublic = "metrics_public"
        case queryTokens = "query_tokens"
        case webRoot = "web_root"
        case tls
    }

    package init() {}

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        listen = try c.decodeIfPresent([String].self, forKey: .listen) ?? []
        origins = try c.decodeIfPresent([String].self, forKey: .origins) ?? []
        hosts = try c.decodeIfPresent([String].self, forKey: .hosts) ?? []
        maxConnections = try c.number(.maxConnections, in: 1...100_000)
        maxConnectionsPerAddress = try c.number(.maxConnectionsPerAddress, in: 1...100_000)
        maxStreamsPerToken = try c.number(.maxStreamsPerToken, in: 1...100_000)
        tokenMaxLifetimeDays = try c.number(.tokenMaxLifetimeDays, in: 0...3_650)
        idleTimeoutMilliseconds = try c.number(.idleTimeoutMilliseconds, in: 100...3_600_000)
        requestTimeoutMilliseconds = try c.number(.requestTimeoutMilliseconds, in: 100...600_000)
        metricsPublic = try c.decodeIfPresent(Bool.self, forKey: .metricsPublic) ?? false
        queryTokens = try c.decodeIfPresent(Bool.self, forKey: .queryTokens) ?? true
        webRoot = try c.decodeIfPresent(String.self, forKey: .webRoot)
        tls = try c.decodeIfPresent(TLS.self, forKey: .tls) ?? TLS()
    }
}
