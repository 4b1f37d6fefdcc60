package import ScanBridgeCore
import ScanBridgeModel

/// Limits that keep one client from costing the daemon unbounded memory.
package struct ServerLimits: Sendable, Hashable {
    /// Longest request line (docs/protocol.md: 1 MiB by default).
    package var maxLineBytes: Int
    /// Events that may wait for one slow subscriber before it overflows.
    package var subscriptionQueue: Int
    /// Bytes of answers, events and notices that may wait for one connection's client.
    package var connectionBufferBytes: Int
    /// And for every client together.
    package var totalBufferBytes: Int
    package var subscriptionsPerConnection: Int
    /// Requests and notifications one connection may have running at once.
    package var pendingRequests: Int
    /// Elements one batch may hold.
    package var maxBatch: Int
    /// Connections open at once, and of them, connections of one user.
    package var maxConnections: Int
    package var maxConnectionsPerUser: Int
    /// Out-of-process handlers one connection may register.
    package var handlersPerConnection: Int
    /// How long an out-of-process handler may take to answer before the event resolves `timeout`.
    package var handlerTimeout: Duration

    package init(
        maxLineBytes: Int = 1 << 20, subscriptionQueue: Int = 4096, connectionBufferBytes: Int = 8 << 20,
        totalBufferBytes: Int = 64 << 20,
        subscriptionsPerConnection: Int = 32,
        pendingRequests: Int = 4096, maxBatch: Int = 1000, maxConnections: Int = 256, maxConnectionsPerUser: Int = 64,
        handlersPerConnection: Int = 16,
        handlerTimeout: Duration = .seconds(2)
    ) {
        self.maxLineBytes = maxLineBytes
        self.subscriptionQueue = subscriptionQueue
        self.connectionBufferBytes = connectionBufferBytes
        self.totalBufferBytes = totalBufferBytes
        self.subscriptionsPerConnection = subscriptionsPerConnection
        self.pendingRequests = pendingRequests
        self.maxBatch = maxBatch
        self.maxConnections = maxConnections
        self.maxConnectionsPerUser = maxConnectionsPerUser
        self.handlersPerConnection = handlersPerConnection
        self.handlerTimeout = handlerTimeout
    }
}

/// What the protocol's methods work on.
package struct ServerServices: Sendable {
    package let bridge: Bridge
    /// The mock driver, when it runs.
    package let mock: (any MockDeviceControl)?
    /// Names of the drivers that run.
    package let drivers: [String]
    package let version: String
    package let limits: ServerLimits
    /// Every connection's outbox together, bounded by `limits.totalBufferBytes`.
    package let buffers: BufferBudget
    /// The catalog, cards, customers and orders; nil when the daemon runs without them.
    package let domain: DomainServices?
    /// The operator's say over which discovered USB devices are scanners; nil when discovery is off.
    package let scanners: (any ScannerControl)?
    /// USB port resets of listed devices (`devices.reset`); nil when the daemon has none.
    package let resets: (any DeviceResetting)?
    /// The gateway's access tokens; nil when the daemon keeps none (no store).
    package let tokens: (any TokenAuthority)?
    /// The metrics in Prometheus's text format 0.0.4, for `GET /metrics`; nil when none are kept.
    package let metrics: (@Sendable () -> [UInt8])?
    /// Where the servers count connections and refusals.
    package let serverMetrics: ServerMetrics
    /// This daemon's name among the shop's counters (`counter_id`).
    package let counter: String
    /// The copies of this counter's events in the shop's shared store; nil without one.
    package let sharedStore: (any SharedStoreControl)?
    package let dispatcher: RPCDispatcher

    package init(
        bridge: Bridge, mock: (any MockDeviceControl)?, drivers: [String], version: String, limits: ServerLimits,
        domain: DomainServices? = nil, scanners: (any ScannerControl)? = nil, resets: (any DeviceResetting)? = nil,
        tokens: (any TokenAuthority)? = nil, metrics: (@Sendable () -> [UInt8])? = nil, serverMetrics: ServerMetrics = .none,
        counter: String = "local", sharedStore: (any SharedStoreControl)? = nil
    ) {
        self.counter = counter
        self.sharedStore = sharedStore
        self.serverMetrics = serverMetrics
        self.domain = domain
        self.scanners = scanners
        self.resets = resets
        self.tokens = tokens
        self.metrics = metrics
        self.bridge = bridge
        self.mock = mock
        self.drivers = drivers
        self.version = version
        self.limits = limits
        self.buffers = BufferBudget(capacity: limits.totalBufferBytes)
        self.dispatcher = RPCDispatcher.standard
    }
}
