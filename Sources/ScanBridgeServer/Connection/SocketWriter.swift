package import NIOCore
import NIOHTTP1
import NIOWebSocket
import ScanBridgeCore
import ScanBridgeModel
import Synchronization

/// Moves a connection's outbox to its socket, on the channel's event loop, while the socket
/// takes more: straight from the thread that queued a message to the event loop, with no
/// task in between, and nothing taken while the client is not reading. The framing is the
/// transport's one say in what is written.
package final class SocketWriter: Sendable {
    /// How a transport frames the outbox's messages.
    package enum Framing: Sendable {
        /// The Unix socket's: each message and a line feed, as bytes.
        case lines
        /// One WebSocket text frame a message.
        case webSocketText
        /// Messages already framed as Server-Sent Events, as the body of an HTTP response.
        case eventStream
    }

    private let channel: any Channel
    private let framing: Framing
    private let flushes: LoopFlushes
    private let target = Mutex<Outbox?>(nil)

    /// - Parameter flushes: the writers of the channel's event loop, flushed together.
    package init(channel: any Channel, framing: Framing, flushes: LoopFlushes) {
        self.channel = channel
        self.framing = framing
        self.flushes = flushes
    }

    package func attach(_ outbox: Outbox) {
        target.withLock { $0 = outbox }
        channel.closeFuture.whenComplete { _ in outbox.abandon() }
    }

    /// Called when the outbox has new messages, from any thread.
    package func schedule() {
        flushes.schedule(self)
    }

    /// Writes while the socket is writable; called again when it becomes writable.
    func flush() {
        channel.eventLoop.preconditionInEventLoop()
        guard let outbox = target.withLock({ $0 }) else { return }
        while channel.isWritable {
            let taken = outbox.take()
            guard !taken.items.isEmpty else { return }
            switch framing {
            case .lines: writeLines(taken)
            case .webSocketText: writeWebSocketFrames(taken)
            case .eventStream: writeEventStream(taken)
            }
            // Emptied: the next message schedules the next flush.
            guard taken.more else { return }
        }
    }

    private func writeLines(_ taken: Outbox.Taken) {
        // Sized once, from the take's byte count: a buffer grown as it fills is copied at
        // every growth.
        var buffer = channel.allocator.buffer(capacity: taken.bytes)
        for item in taken.items {
            Self.write(item, into: &buffer)
            buffer.writeInteger(UInt8(ascii: "\n"))
        }
        channel.writeAndFlush(buffer, promise: nil)
    }

    private func writeWebSocketFrames(_ taken: Outbox.Taken) {
        for item in taken.items {
            var buffer = channel.allocator.buffer(capacity: item.lineBytes)
            Self.write(item, into: &buffer)
            channel.write(WebSocketFrame(fin: true, opcode: .text, data: buffer), promise: nil)
        }
        channel.flush()
    }

    private func writeEventStream(_ taken: Outbox.Taken) {
        var buffer = channel.allocator.buffer(capacity: taken.bytes)
        for item in taken.items { Self.write(item, into: &buffer) }
        channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(buffer)), promise: nil)
    }

    @inline(__always)
    private static func write(_ item: Outbox.Item, into buffer: inout ByteBuffer) {
        switch item {
        case .message(let bytes):
            buffer.writeBytes(bytes)
        case .scan(let event, let prefix):
            buffer.writeBytes(prefix)
            buffer.writeBytes(event.json)
            buffer.writeBytes(Outbox.scanSuffix)
        }
    }
}

/// Tells the socket writer when a socket that was full can take more.
package final class WritabilityWatcher: ChannelInboundHandler, Sendable {
    package typealias InboundIn = ByteBuffer
    package typealias InboundOut = ByteBuffer

    private let writer = Mutex<SocketWriter?>(nil)

    package init() {}

    package func watch(with socketWriter: SocketWriter) {
        writer.withLock { $0 = socketWriter }
    }

    package func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { writer.withLock { $0 }?.flush() }
        context.fireChannelWritabilityChanged()
    }
}
