import Logging
import NIOCore
import NIOHTTP1
import NIOWebSocket
import ScanBridgeServer
import Synchronization

extension GatewayRouter {
    /// Fragments one WebSocket message may come in.
    static let maxFragments = 1024

    /// The `GET /v1/ws` upgrader: upgrades a request the access checks allow; one they refuse
    /// goes on to `serve`, which answers the refusal (401, 403 or 503 with its JSON body).
    func webSocketUpgrader() -> NIOWebSocketServerUpgrader {
        let grants = WebSocketGrants()
        return NIOWebSocketServerUpgrader(
            maxFrameSize: services.limits.maxLineBytes, automaticErrorHandling: false,
            shouldUpgrade: { channel, head in
                let request = GatewayRequest(head: head, body: nil)
                guard request.path == "/v1/ws" else { return channel.eventLoop.makeSucceededFuture(nil) }
                return channel.eventLoop.makeFutureWithTask {
                    guard case .allowed(let token?) = await self.access.check(request, needsToken: true),
                        self.connections.claimStream(channel, as: .websocket, token: token.id)
                    else { return nil }
                    grants.keep(token, for: channel)
                    // Named back when asked for: a browser that offered subprotocols (its token
                    // among them) fails a handshake whose answer names none.
                    var headers = HTTPHeaders()
                    if request.webSocketProtocols.contains(GatewayRequest.webSocketProtocol) {
                        headers.add(name: "Sec-WebSocket-Protocol", value: GatewayRequest.webSocketProtocol)
                    }
                    return headers
                }
            },
            upgradePipelineHandler: { channel, _ in
                guard let token = grants.take(for: channel) else { return channel.close() }
                return channel.eventLoop.submit {
                    try self.startWebSocket(on: channel, token: token)
                }
            })
    }

    /// Runs a connection on the upgraded channel, as `RPCServer` runs one on a Unix socket.
    private func startWebSocket(on channel: any Channel, token: AuthenticatedToken) throws {
        let pipeline = channel.pipeline.syncOperations
        pipeline.removeHandler(try pipeline.handler(type: GatewayHTTPHandler.self), promise: nil)
        try pipeline.handler(type: GatewayDeadlines.self).webSocketOpened()
        let watcher = WritabilityWatcher()
        let reader = RequestReader()
        let maxMessage = services.limits.maxLineBytes
        try pipeline.addHandlers(
            [watcher] + Self.messageHandlers(maxMessageBytes: maxMessage, metrics: services.serverMetrics) + [reader])
        let number = nextConnectionNumber()
        let logger = connectionLogger("ws\(number)", token: token)
        let writer = SocketWriter(channel: channel, framing: .webSocketText, flushes: flushes.flushes(for: channel.eventLoop))
        watcher.watch(with: writer)
        let connection = Connection(
            id: number, role: token.role, identity: .token(id: token.id), services: services, channel: channel,
            writer: writer, logger: logger)
        reader.attach(connection)
        let farewell = WebSocketFrame.close(
            .policyViolation, "the access token was revoked or has expired", allocator: channel.allocator)
        let watch = closing(channel, when: token, farewell: farewell)
        logger.debug("websocket connected")
        Task {
            await connection.run()
            watch?.cancel()
            // Closed within the grace even if the client takes nothing more.
            channel.eventLoop.scheduleTask(in: GatewayConnections.closeGrace) { channel.close(promise: nil) }
            try? await channel.writeAndFlush(WebSocketFrame.close(.normalClosure, allocator: channel.allocator))
            try? await channel.close()
            logger.debug("websocket disconnected")
        }
    }

    /// What turns the frames of an upgraded channel into the messages its connection reads:
    /// fragments joined, then each message checked. Apart from `startWebSocket`, so that
    /// FuzzGateway feeds its frames through the very handlers a WebSocket has.
    static func messageHandlers(maxMessageBytes: Int, metrics: ServerMetrics) -> [any ChannelHandler] {
        [
            NIOWebSocketFrameAggregator(
                minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: maxFragments, maxAccumulatedFrameSize: maxMessageBytes),
            WebSocketMessages(maxMessageBytes: maxMessageBytes, metrics: metrics),
        ]
    }

    /// The logger of a connection a token opened: its id and role, never its secret.
    func connectionLogger(_ connection: String, token: AuthenticatedToken) -> Logger {
        var logger = self.logger
        logger[metadataKey: "connection.id"] = "\(connection)"
        logger[metadataKey: "token.id"] = "\(token.id)"
        logger[metadataKey: "peer.role"] = "\(token.role)"
        return logger
    }

    /// Closes the channel when its token is revoked or expires, after `farewell` (a
    /// WebSocket's close frame) when there is one.
    func closing(_ channel: any Channel, when token: AuthenticatedToken, farewell: WebSocketFrame? = nil)
        -> TokenWatch?
    {
        guard let tokens = services.tokens else { return nil }
        let watch = tokens.watch(token.id) { [logger] in
            logger.info("token ended; closing its connection", metadata: ["token.id": "\(token.id)"])
            guard let farewell else { return channel.close(promise: nil) }
            GatewayConnections.close(channel, after: farewell)
        }
        channel.closeFuture.whenComplete { _ in watch.cancel() }
        return watch
    }
}

/// The token an allowed upgrade request carried, from the check to the upgraded pipeline.
private final class WebSocketGrants: Sendable {
    private let tokens = Mutex<[ObjectIdentifier: AuthenticatedToken]>([:])

    func keep(_ token: AuthenticatedToken, for channel: any Channel) {
        tokens.withLock { $0[ObjectIdentifier(channel)] = token }
        // A connection that closes before its upgrade completes leaves nothing behind.
        channel.closeFuture.whenComplete { _ in _ = self.take(for: channel) }
    }

    func take(for channel: any Channel) -> AuthenticatedToken? {
        tokens.withLock { $0.removeValue(forKey: ObjectIdentifier(channel)) }
    }
}
