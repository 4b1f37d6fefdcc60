import NIOCore
import NIOWebSocket
import ScanBridgeServer

/// Turns a WebSocket's frames into the messages its connection reads, as the Unix socket's
/// line decoder turns bytes into lines: each text message (fragments already joined) goes on
/// as one message; a binary message closes with 1003, a message over the limit with 1009;
/// pings are answered, and a close is echoed.
final class WebSocketMessages: ChannelInboundHandler {
    typealias InboundIn = WebSocketFrame
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = WebSocketFrame

    private let maxMessageBytes: Int
    private let metrics: ServerMetrics
    private var closing = false

    init(maxMessageBytes: Int, metrics: ServerMetrics) {
        self.maxMessageBytes = maxMessageBytes
        self.metrics = metrics
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        guard !closing else { return }
        switch frame.opcode {
        case .text:
            context.fireChannelRead(wrapInboundOut(frame.unmaskedData))
        case .binary:
            close(context, .unacceptableData, "binary messages are not accepted; send each JSON-RPC message as text")
        case .ping:
            let pong = WebSocketFrame(fin: true, opcode: .pong, data: frame.unmaskedData)
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
        case .connectionClose:
            // Echo the client's code, as RFC 6455 asks, then close.
            var data = frame.unmaskedData
            let code = data.readInteger(as: UInt16.self).map { WebSocketErrorCode(codeNumber: Int($0)) } ?? .normalClosure
            close(context, code, "")
        default:
            break
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        switch error {
        case NIOWebSocketFrameAggregator.Error.accumulatedFrameSizeIsTooLarge,
            NIOWebSocketFrameAggregator.Error.tooManyFragments, NIOWebSocketError.invalidFrameLength:
            metrics.refused(.tooLarge)
            close(context, .messageTooLarge, "a message may hold at most \(maxMessageBytes) bytes (server.max_line_bytes)")
        default:
            close(context, .protocolError, "")
        }
    }

    private func close(_ context: ChannelHandlerContext, _ code: WebSocketErrorCode, _ reason: String) {
        guard !closing else { return }
        closing = true
        // Closed within the grace whether or not the frame is written: a client that reads
        // nothing would otherwise keep its socket by sending a frame too large now and then.
        GatewayConnections.close(context.channel, after: .close(code, reason, allocator: context.channel.allocator))
    }
}

extension WebSocketFrame {
    /// A close frame: its code, then its reason in UTF-8.
    static func close(_ code: WebSocketErrorCode, _ reason: String = "", allocator: ByteBufferAllocator) -> WebSocketFrame {
        var data = allocator.buffer(capacity: 2 + reason.utf8.count)
        data.write(webSocketErrorCode: code)
        data.writeString(reason)
        return WebSocketFrame(fin: true, opcode: .connectionClose, data: data)
    }
}
