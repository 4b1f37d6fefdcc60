import ScanBridgeModel

/// The config file's `server:` section: the limits of the socket's clients, each checked for
/// its range as it is read. A zero or negative limit would refuse every client; a huge one
/// would let the daemon hold without bound what the limit is there to bound. Each upper bound
/// is far past any counter's need (a gigabyte a line). `handlerTimeout` is `handlers:`'s.
extension ServerLimits: Decodable {
    enum SettingsKeys: String, CodingKey {
        case maxLineBytes = "max_line_bytes"
        case subscriptionQueue = "subscription_queue"
        case connectionBufferBytes = "connection_buffer_bytes"
        case totalBufferBytes = "total_buffer_bytes"
        case subscriptionsPerConnection = "subscriptions_per_connection"
        case pendingRequests = "pending_requests"
        case maxBatch = "max_batch"
        case maxConnections = "max_connections"
        case maxConnectionsPerUser = "max_connections_per_user"
        case handlersPerConnection = "handlers_per_connection"
    }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: SettingsKeys.self)
        self.init()
        maxLineBytes = try c.number(.maxLineBytes, in: 1024...1 << 30) ?? maxLineBytes
        subscriptionQueue = try c.number(.subscriptionQueue, in: 1...1_000_000) ?? subscriptionQueue
        connectionBufferBytes = try c.number(.connectionBufferBytes, in: 64 << 10...1 << 30) ?? connectionBufferBytes
        totalBufferBytes = try c.number(.totalBufferBytes, in: 1 << 20...16 << 30) ?? totalBufferBytes
        subscriptionsPerConnection = try c.number(.subscriptionsPerConnection, in: 1...10_000) ?? subscriptionsPerConnection
        pendingRequests = try c.number(.pendingRequests, in: 1...1_000_000) ?? pendingRequests
        maxBatch = try c.number(.maxBatch, in: 1...100_000) ?? maxBatch
        maxConnections = try c.number(.maxConnections, in: 1...100_000) ?? maxConnections
        maxConnectionsPerUser = try c.number(.maxConnectionsPerUser, in: 1...100_000) ?? maxConnectionsPerUser
        handlersPerConnection = try c.number(.handlersPerConnection, in: 1...1_000) ?? handlersPerConnection
    }
}
