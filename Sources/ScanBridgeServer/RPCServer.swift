import Foundation
package import Logging
import NIOCore
import NIOPosix
import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeRPC
package import ScanBridgeService
import ServiceLifecycle
import Synchronization

/// The Unix-socket JSON-RPC server: one task per connection; stops accepting on graceful
/// shutdown, closes its connections, and removes its socket file.
package final class RPCServer: Service {
    package let socketPath: String
    let socketGroup: UInt32?
    let services: ServerServices
    let policy: RolePolicy
    let logger: Logger
    let onReady: @Sendable () -> Void
    /// The socket systemd bound and passed (scanbridged.socket), served instead of `socketPath`.
    let activated: ActivatedSockets.Listener?
    private let connectionCount = Atomic<Int>(0)
    private let flushes = LoopFlushesByLoop()
    private let slots: ConnectionSlots

    package init(
        socketPath: String, socketGroup: UInt32? = nil, activated: ActivatedSockets.Listener? = nil,
        services: ServerServices, policy: RolePolicy, logger: Logger, onReady: @escaping @Sendable () -> Void = {}
    ) {
        self.socketPath = activated?.path ?? socketPath
        self.activated = activated
        self.socketGroup = socketGroup
        self.services = services
        self.policy = policy
        self.logger = logger
        self.onReady = onReady
        slots = ConnectionSlots(limit: services.limits.maxConnections, limitPerUser: services.limits.maxConnectionsPerUser)
    }

    package func run() async throws {
        let socket: CInt
        if let activated {
            // systemd owns this socket and its file, and keeps both across the daemon's restarts.
            socket = activated.descriptor
        } else {
            try await SocketFile.prepare(socketPath, group: socketGroup)
            socket = try await SocketFile.bind(socketPath, group: socketGroup)
        }
        defer { if activated == nil { unlink(socketPath) } }
        let maxLine = services.limits.maxLineBytes
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            // Nothing is read before the connection's role is known and its reader installed.
            .childChannelOption(.autoRead, value: false)
            // A client may send its requests, shut its side, and still read the answers.
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .bind(socket) { channel in
                Self.peerCredentials(of: channel).flatMapThrowing { peer in
                    let watcher = WritabilityWatcher()
                    let reader = RequestReader()
                    try channel.pipeline.syncOperations.addHandlers(
                        ByteToMessageHandler(LineFrameDecoder(maxLineBytes: maxLine)), watcher, reader)
                    return Accepted(channel: channel, peer: peer, watcher: watcher, reader: reader)
                }
            }
        // NIO listens on a socket it is handed with its own backlog (128); listening again sets
        // it, so a burst of as many clients as max_connections is queued, not refused.
        listen(socket, 256)
        logger.info("listening", metadata: ["socket": "\(socketPath)", "socket.activated": "\(activated != nil)"])
        onReady()
        do {
            try await cancelWhenGracefulShutdown {
                try await server.executeThenClose { inbound in
                    try await withThrowingDiscardingTaskGroup { group in
                        for try await accepted in inbound {
                            group.addTask { await self.serve(accepted) }
                        }
                    }
                }
            }
        } catch is CancellationError {
            // Graceful shutdown cancels the accept loop and the connections: a normal stop.
        }
        logger.info("stopped listening")
    }

    /// A new connection, as the channel initializer prepared it.
    private struct Accepted: Sendable {
        let channel: any Channel
        let peer: PeerCredentials
        let watcher: WritabilityWatcher
        let reader: RequestReader
    }

    private func serve(_ accepted: Accepted) async {
        let (channel, peer) = (accepted.channel, accepted.peer)
        let number = connectionCount.wrappingAdd(1, ordering: .relaxed).newValue
        var logger = self.logger
        logger[metadataKey: "connection.id"] = "\(number)"
        logger[metadataKey: "peer.uid"] = "\(peer.uid)"
        logger[metadataKey: "peer.pid"] = "\(peer.pid)"
        if let full = slots.take(for: peer.uid) {
            services.serverMetrics.refused(.overloaded)
            logger.warning("connection refused: too many connections", metadata: ["reason": "\(full)"])
            await refuse(
                channel,
                RPCError(code: RPCError.overloaded, message: "overloaded: \(full); close a connection and connect again"))
            return
        }
        defer { slots.release(for: peer.uid) }
        guard let role = policy.role(for: peer) else {
            services.serverMetrics.refused(.forbidden)
            logger.warning("connection refused: the peer's user is in none of the configured groups")
            await refuse(
                channel,
                RPCError(
                    code: RPCError.forbidden,
                    message:
                        "forbidden: user \(peer.uid) is not allowed to use ScanBridge; add it to the reader, operator or admin group in the daemon's config"
                ))
            return
        }
        logger[metadataKey: "peer.role"] = "\(role)"
        logger.debug("connected")
        services.serverMetrics.connected(.unix)
        defer { services.serverMetrics.disconnected(.unix) }
        // Answers and notifications go straight to the channel (see SocketWriter).
        let writer = SocketWriter(channel: channel, framing: .lines, flushes: flushes.flushes(for: channel.eventLoop))
        accepted.watcher.watch(with: writer)
        let connection = Connection(
            id: number, role: role, identity: .peer(peer), services: services, channel: channel, writer: writer, logger: logger)
        do {
            try await channel.eventLoop.submit {
                accepted.reader.attach(connection)
                channel.setOption(.autoRead, value: true).whenSuccess { channel.read() }
            }.get()
        } catch {
            connection.inputEnded()
        }
        await connection.run()
        try? await channel.close()
        logger.debug("disconnected")
    }

    /// One error line with a null id, then the connection is closed.
    private func refuse(_ channel: any Channel, _ error: RPCError) async {
        try? await channel.writeAndFlush(ByteBuffer(bytes: RPCMessage.error(id: .null, error) + [0x0A]))
        try? await channel.close()
    }

    private static func peerCredentials(of channel: any Channel) -> EventLoopFuture<PeerCredentials> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeSucceededFuture(PeerCredentials(pid: 0, uid: UInt32.max, gid: UInt32.max))
        }
        return provider.unsafeGetSocketOption(level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED))
            // A kernel without SO_PEERGROUPS (before 4.13) leaves the peer its primary group:
            // fewer roles, never more.
            .and(PeerGroups.read(from: provider).recover { _ in [] })
            .map { (credentials: PeerCredentialsRecord, groups) in
                PeerCredentials(
                    pid: credentials.pid, uid: credentials.uid, gid: credentials.gid, supplementaryGroups: groups)
            }
    }
}

/// `struct ucred` from <sys/socket.h>, which Glibc's Swift module hides behind _GNU_SOURCE:
/// the same three 32-bit fields in the same order.
struct PeerCredentialsRecord: Sendable {
    var pid: Int32
    var uid: UInt32
    var gid: UInt32
}
