import DequeModule
package import NIOCore
import Synchronization

/// Hands each line to its connection on the event loop, where it is parsed and each request
/// is given a task: a single thread hop from socket to handler, as every hop adds to a
/// request's latency. A long line is parsed off the loop (`LongLineParser`), and what
/// follows it waits until it is handled: requests keep their order.
///
/// It is in the pipeline from the start, before the peer's role is known: NIO reads a
/// socket to its end as soon as the peer shuts its side, whatever `autoRead` says, so what
/// arrives before the connection is attached is kept (at most one socket buffer's worth)
/// and handed over then.
package final class RequestReader: ChannelInboundHandler, Sendable {
    package typealias InboundIn = ByteBuffer

    private enum Input {
        case line(ByteBuffer)
        case tooLong(limit: Int)
        case ended
    }

    private struct State {
        var connection: Connection?
        /// Input not yet handed over: before the connection is attached, or behind a long line.
        var waiting: Deque<Input> = []
        var parsingLongLine = false
    }

    private let state = Mutex(State())

    package init() {}

    /// Attaches the connection and hands it what arrived before. Call on the event loop.
    package func attach(_ connection: Connection) {
        state.withLock { $0.connection = connection }
        deliverWaiting()
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        receive(.line(unwrapInboundIn(data)))
    }

    package func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // The client shut its side: answer what it asked, then close.
        if case ChannelEvent.inputClosed = event { receive(.ended) }
        context.fireUserInboundEventTriggered(event)
    }

    package func channelInactive(context: ChannelHandlerContext) {
        receive(.ended)
        context.fireChannelInactive()
    }

    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let tooLong = error as? LineFrameDecoder.LineTooLong {
            receive(.tooLong(limit: tooLong.limit))
        } else {
            receive(.ended)
        }
    }

    private func receive(_ input: Input) {
        state.withLock { $0.waiting.append(input) }
        deliverWaiting()
    }

    /// Hands over waiting input in order, until there is none, no connection yet, or a long
    /// line is being parsed.
    private func deliverWaiting() {
        while let (connection, input) = state.withLock({ state -> (Connection, Input)? in
            guard let connection = state.connection, !state.parsingLongLine, let input = state.waiting.popFirst() else {
                return nil
            }
            if case .line(let line) = input, line.readableBytes > LongLineParser.threshold { state.parsingLongLine = true }
            return (connection, input)
        }) {
            switch input {
            case .line(let line) where line.readableBytes > LongLineParser.threshold:
                connection.receivedLong(line) {
                    self.state.withLock { $0.parsingLongLine = false }
                    self.deliverWaiting()
                }
            case .line(let line): connection.received(line)
            case .tooLong(let limit): connection.receivedTooLong(limit: limit)
            case .ended: connection.inputEnded()
            }
        }
    }
}
