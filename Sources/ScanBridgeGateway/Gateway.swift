package import Logging
import NIOCore
import NIOHTTP1
package import NIOPosix
import NIOWebSocket
package import ScanBridgeServer
package import ScanBridgeService
import ServiceLifecycle

/// The gateway: HTTP/1.1, WebSocket and Server-Sent Events on each configured address, over
/// TLS when a certificate is configured (docs/protocol.md, Web and network access). Stops
/// listening and closes its connections on graceful shutdown.
package final class Gateway: Service {
    let settings: GatewaySettings
    let services: ServerServices
    let logger: Logger
    let readiness: @Sendable () async -> [String]
    /// Called once every listener is bound, with the addresses bound (a port 0 resolved).
    let onListening: @Sendable ([GatewayAddress]) -> Void
    /// Listeners systemd bound and passed (scanbridged-http.socket), served instead of
    /// `settings.listen`.
    let activated: [ActivatedSockets.Listener]

    package init(
        settings: GatewaySettings, services: ServerServices, logger: Logger, activated: [ActivatedSockets.Listener] = [],
        readiness: @escaping @Sendable () async -> [String] = { [] },
        onListening: @escaping @Sendable ([GatewayAddress]) -> Void = { _ in }
    ) {
        self.settings = settings
        self.services = services
        self.logger = logger
        self.readiness = readiness
        self.onListening = onListening
        self.activated = activated
    }

    package func run() async throws {
        let tls = try await tlsContext()
        let connections = GatewayConnections(
            limit: settings.maxConnections, limitPerAddress: settings.maxConnectionsPerAddress,
            streamsPerToken: settings.maxStreamsPerToken, callsPerToken: services.limits.pendingRequests,
            bodyCapacity: services.limits.totalBufferBytes / 4,
            answerBytesPerToken: services.limits.connectionBufferBytes, metrics: services.serverMetrics)
        let router = GatewayRouter(
            services: services, settings: settings, connections: connections, logger: logger, readiness: readiness)
        let bootstrap = ServerBootstrap(group: Self.eventLoops)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.allowRemoteHalfClosure, value: false)
            // A scan is one small write: Nagle's algorithm would hold it until the client's
            // delayed acknowledgement of the one before, tens of milliseconds later.
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            // A tablet gone without a goodbye (power, Wi-Fi) is noticed in about two minutes.
            .childChannelOption(.socketOption(.so_keepalive), value: 1)
            .childChannelOption(.socket(SocketOptionLevel(IPPROTO_TCP), TCP_KEEPIDLE), value: 60)
            .childChannelOption(.socket(SocketOptionLevel(IPPROTO_TCP), TCP_KEEPINTVL), value: 10)
            .childChannelOption(.socket(SocketOptionLevel(IPPROTO_TCP), TCP_KEEPCNT), value: 6)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try Self.configure(channel, router: router, connections: connections, tls: tls)
                }
            }
        var listeners: [any Channel] = []
        var bound: [GatewayAddress] = []
        do {
            if activated.isEmpty {
                for address in settings.listen {
                    let listener = try await bootstrap.bind(host: address.host, port: address.port).get()
                    listeners.append(listener)
                    bound.append(GatewayAddress(host: address.host, port: listener.localAddress?.port ?? address.port))
                }
            } else {
                for socket in activated {
                    let listener = try await bootstrap.withBoundSocket(socket.descriptor).get()
                    listeners.append(listener)
                    if let address = listener.localAddress, let host = address.ipAddress, let port = address.port {
                        bound.append(GatewayAddress(host: host, port: port))
                    }
                }
            }
        } catch {
            for listener in listeners { try? await listener.close() }
            throw GatewayError(description: "the gateway cannot listen: \(error)")
        }
        router.access.listening(on: bound)
        for address in bound {
            logger.info(
                "gateway listening", metadata: ["http.address": "\(address)", "http.tls": "\(tls != nil)"])
            if tls == nil, !GatewayAccess.isLoopback(address.host) {
                logger.warning(
                    "the gateway listens beyond this machine without TLS: access tokens and scans cross the network in clear; set http.tls (docs/gateway.md)",
                    metadata: ["http.address": "\(address)"])
            }
        }
        onListening(bound)
        // Runs until the daemon stops.
        try? await gracefulShutdown()
        for listener in listeners { try? await listener.close() }
        await connections.closeAll()
        logger.info("gateway stopped listening")
    }

    /// A new connection's pipeline: its deadlines, reads paused while it takes no answers,
    /// TLS when configured, HTTP with the WebSocket upgrade, the router. Past a bound of
    /// `connections`, it is answered 503 and closed at once.
    private static func configure(
        _ channel: any Channel, router: GatewayRouter, connections: GatewayConnections, tls: GatewayTLSContext?
    ) throws {
        let pipeline = channel.pipeline.syncOperations
        if case .refused(let perAddress) = connections.admit(channel) {
            router.services.serverMetrics.refused(.overloaded)
            let bound =
                perAddress
                ? "\(connections.limitPerAddress) connections open from this address, its limit (http.max_connections_per_address)"
                : "\(connections.limit) connections open, its limit (http.max_connections)"
            let refusal = GatewayResponse.overloaded("the gateway has \(bound); try again later")
            let answered = tls == nil && connections.mayAnswerRefusal(of: channel)
            try pipeline.addHandler(RefusedConnection(answer: answered ? refusal.closingBytes : nil))
            return
        }
        let deadlines = GatewayDeadlines(
            idleTimeout: router.settings.idleTimeout, requestTimeout: router.settings.requestTimeout,
            connections: connections)
        try pipeline.addHandler(deadlines)
        if let tls { try addTLS(tls, to: pipeline) }
        try pipeline.configureHTTPServerPipeline(
            withServerUpgrade: (upgraders: [router.webSocketUpgrader()], completionHandler: { _ in }))
        try pipeline.addHandler(WritabilityWatcher())
        try pipeline.addHandler(GatewayHTTPHandler(router: router, deadlines: deadlines))
    }

    /// The gateway's own event loops, apart from the Unix socket's: a scan fanned out to
    /// hundreds of browsers is written by these threads, so the box's own programs and the
    /// requests on its socket never wait behind those writes (docs/architecture.md, Design
    /// decisions). One thread fewer than the cores, so the local path keeps one. Made on the
    /// gateway's first start and kept for the process's life, as NIO's own loops are: a
    /// connection's last tasks may still run on them after the gateway has stopped.
    package static let eventLoops = MultiThreadedEventLoopGroup(numberOfThreads: max(1, System.coreCount - 1))
}

/// Why the gateway cannot start.
package struct GatewayError: Error, CustomStringConvertible {
    package let description: String
}
