import NIOCore
import NIOWebSocket

/// The deadlines of one gateway connection. First in its pipeline, it sees the socket's own
/// bytes, a TLS handshake's too:
/// - waiting for a request: `http.idle_timeout_ms` until its first byte;
/// - receiving one: `http.request_timeout_ms` from its first byte until it is whole, so a
///   header sent a byte at a time holds no place for long;
/// - answering: none of its own (an event stream is one long answer);
/// - a WebSocket: pinged after half the idle timeout without a frame, closed after all of it,
///   so a tablet gone without a goodbye gives its place back;
/// - always: a client that takes none of its answers for the idle timeout is closed, and
///   nothing is read from a client while its answers wait unsent (NIO's `BackPressureHandler`
///   would do that too, but it flushes from the middle of a write, where a writable event can
///   start the next chunk of an event stream inside the one being written).
///
/// The gateway's handlers tell it where a connection is (`received`, `answered`,
/// `webSocketOpened`); it tells `GatewayConnections` which connections wait, the ones a new
/// connection may take the place of.
final class GatewayDeadlines: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = NIOAny

    private enum Phase {
        case waiting, receiving, answering, webSocket
    }

    private let idleTimeout: TimeAmount
    private let requestTimeout: TimeAmount
    private let connections: GatewayConnections
    private var phase = Phase.waiting
    private var context: ChannelHandlerContext?
    private var deadline: Scheduled<Void>?
    private var stalled: Scheduled<Void>?
    /// When a WebSocket's client last sent a frame (any bytes).
    private var heard = NIODeadline.now()
    /// A read asked for while the channel was not writable, done once it is.
    private var readHeld = false
    /// The request read is the connection's last: nothing more is read from it.
    private var lastRequestRead = false

    init(idleTimeout: Duration, requestTimeout: Duration, connections: GatewayConnections) {
        self.idleTimeout = TimeAmount(idleTimeout)
        self.requestTimeout = TimeAmount(requestTimeout)
        self.connections = connections
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        expire(in: idleTimeout)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        stalled?.cancel()
        self.context = nil
        if readHeld && !lastRequestRead { context.read() }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch phase {
        case .waiting:
            phase = .receiving
            expire(in: requestTimeout)
        case .webSocket:
            heard = .now()
        case .receiving, .answering:
            break
        }
        context.fireChannelRead(data)
    }

    func read(context: ChannelHandlerContext) {
        if lastRequestRead { return }
        if context.channel.isWritable {
            context.read()
        } else {
            readHeld = true
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        stalled?.cancel()
        stalled = nil
        if !context.channel.isWritable {
            stalled = context.eventLoop.assumeIsolated().scheduleTask(in: idleTimeout) {
                context.close(promise: nil)
            }
        } else if readHeld && !lastRequestRead {
            readHeld = false
            context.read()
        }
        context.fireChannelWritabilityChanged()
    }

    /// A request is whole: it is answered without a deadline.
    func received() {
        guard phase != .webSocket, let context else { return }
        phase = .answering
        deadline?.cancel()
        deadline = nil
        connections.waiting(context.channel, false)
    }

    /// The request just read is the last the connection gets (`Connection: close`, or one
    /// that asks for an upgrade, after which NIO's decoder parses nothing): nothing more is
    /// read, so a client cannot pile bytes up behind an answer it does not take. The
    /// connection closes once its answer is written, or when it takes none of it for the
    /// idle timeout.
    func lastRequest() {
        lastRequestRead = true
    }

    /// Its answer has ended: the connection waits for the next request.
    func answered() {
        guard phase == .answering, let context else { return }
        phase = .waiting
        connections.waiting(context.channel, true)
        expire(in: idleTimeout)
    }

    /// The connection is a WebSocket now: kept alive by pings.
    func webSocketOpened() {
        phase = .webSocket
        heard = .now()
        checkAlive(in: halfIdle)
    }

    private var halfIdle: TimeAmount { .nanoseconds(idleTimeout.nanoseconds / 2) }

    private func checkAlive(in delay: TimeAmount) {
        guard let context else { return }
        deadline?.cancel()
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: delay) {
            let silent = NIODeadline.now() - self.heard
            if silent >= self.idleTimeout {
                context.close(promise: nil)
                return
            }
            if silent >= self.halfIdle {
                let ping = WebSocketFrame(fin: true, opcode: .ping, data: context.channel.allocator.buffer(capacity: 0))
                context.channel.writeAndFlush(ping, promise: nil)
                self.checkAlive(in: self.idleTimeout - silent)
            } else {
                self.checkAlive(in: self.halfIdle - silent)
            }
        }
    }

    private func expire(in timeout: TimeAmount) {
        guard let context else { return }
        deadline?.cancel()
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) {
            context.close(promise: nil)
        }
    }
}
