import NIOCore

/// A connection past a bound of `GatewayConnections`: answered without an HTTP pipeline once
/// its first bytes arrive, and closed within `GatewayConnections.closeGrace` whatever it does.
/// Its request is read and dropped rather than left unread: closing on unread bytes would
/// reset the connection, and the client could lose the answer. Over TLS it is closed without
/// a word (an answer would need a handshake).
final class RefusedConnection: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var answer: [UInt8]?

    init(answer: [UInt8]?) {
        self.answer = answer
    }

    func channelActive(context: ChannelHandlerContext) {
        guard answer != nil else { return context.close(promise: nil) }
        context.eventLoop.assumeIsolated().scheduleTask(in: GatewayConnections.closeGrace) {
            context.close(promise: nil)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard let answer else { return }
        self.answer = nil
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: answer))).assumeIsolated().whenComplete { _ in
            context.close(mode: .output, promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
