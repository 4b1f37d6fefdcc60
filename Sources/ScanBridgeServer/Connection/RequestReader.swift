import NIOCore
import Synchronization

/// Hands each line to its connection on the event loop, where it is parsed and each request
/// is given a task: a single thread hop from socket to handler, as every hop adds to a
/// request's latency.
///
/// It is in the pipeline from the start, before the peer's role is known: NIO reads a
/// socket to its end as soon as the peer shuts its side, whatever `autoRead` says, so what
/// arrives before the connection is attached is kept (at most one socket buffer's worth)
/// and handed over then.
final class RequestReader: ChannelInboundHandler, Sendable {
    typealias InboundIn = ByteBuffer

    private enum Input {
        case line(ByteBuffer)
        case tooLong(limit: Int)
        case ended
    }

    private struct State {
        var connection: Connection?
        var early: [Input] = []
    }

    private let state = Mutex(State())

    /// Attaches the connection and hands it what arrived before. Call on the event loop.
    func attach(_ connection: Connection) {
        let early = state.withLock { state in
            state.connection = connection
            defer { state.early = [] }
            return state.early
        }
        for input in early { deliver(input, to: connection) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        receive(.line(unwrapInboundIn(data)))
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // The client shut its side: answer what it asked, then close.
        if case ChannelEvent.inputClosed = event { receive(.ended) }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        receive(.ended)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let tooLong = error as? LineFrameDecoder.LineTooLong {
            receive(.tooLong(limit: tooLong.limit))
        } else {
            receive(.ended)
        }
    }

    private func receive(_ input: Input) {
        let connection: Connection? = state.withLock { state in
            if state.connection == nil { state.early.append(input) }
            return state.connection
        }
        if let connection { deliver(input, to: connection) }
    }

    private func deliver(_ input: Input, to connection: Connection) {
        switch input {
        case .line(let line): connection.received(line)
        case .tooLong(let limit): connection.receivedTooLong(limit: limit)
        case .ended: connection.inputEnded()
        }
    }
}
