import NIOCore

/// Hands each line to its connection on the event loop, where it is parsed and each request
/// is given a task: one thread hop from socket to handler, which is most of a request's latency.
final class RequestReader: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer

    private let connection: Connection

    init(connection: Connection) {
        self.connection = connection
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        connection.received(unwrapInboundIn(data))
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // The client shut its side: answer what it asked, then close.
        if case ChannelEvent.inputClosed = event { connection.inputEnded() }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        connection.inputEnded()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let tooLong = error as? LineFrameDecoder.LineTooLong {
            connection.receivedTooLong(limit: tooLong.limit)
        } else {
            connection.inputEnded()
        }
    }
}
