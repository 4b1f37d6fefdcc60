import Logging
import NIOCore
import NIOHTTP1
import NIOWebSocket
import ScanBridgeServer

/// Gathers each HTTP request of a gateway connection, its body bounded by
/// `server.max_line_bytes`, and hands it to the router. NIO's pipelining handler in front
/// holds the next request until this one's response has ended. Last in the pipeline, it sees
/// each answer end, and tells the connection's deadlines.
final class GatewayHTTPHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    static let name = "gateway.http"

    private let router: GatewayRouter
    private let deadlines: GatewayDeadlines
    private var head: HTTPRequestHead?
    private var body: ByteBuffer?
    private var tooLarge = false
    /// The body's bytes counted in the gateway's bound on every body held
    /// (`GatewayConnections.claimBody`); past it, the request is refused.
    private var claimed = 0
    private var overBudget = false
    /// A request whole, held until the client reads enough of the answers before it.
    private var waiting: (request: GatewayRequest, tooLarge: Bool)?

    init(router: GatewayRouter, deadlines: GatewayDeadlines) {
        self.router = router
        self.deadlines = deadlines
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body = nil
            let declared = head.headers.first(name: "Content-Length").flatMap { Int($0) } ?? 0
            tooLarge = declared > router.maxBodyBytes
        case .body(var chunk):
            guard !tooLarge, !overBudget else { return }
            if (body?.readableBytes ?? 0) + chunk.readableBytes > router.maxBodyBytes {
                tooLarge = true
                body = nil
                releaseBody()
            } else if !router.connections.claimBody(chunk.readableBytes) {
                overBudget = true
                body = nil
                releaseBody()
            } else if body == nil {
                body = chunk
            } else {
                body!.writeBuffer(&chunk)
            }
            if body != nil { claimed = body!.readableBytes }
        case .end:
            guard let head else { return }
            self.head = nil
            deadlines.received()
            let request = GatewayRequest(head: head, body: body)
            body = nil
            // Handed on: the request's answer holds it now, bounded as answers are.
            releaseBody()
            if overBudget {
                overBudget = false
                router.services.serverMetrics.refused(.overloaded)
                deadlines.lastRequest()
                GatewayRouter.send(router.connections.tooManyBodies, to: context.channel, for: request, keepAlive: false)
                return
            }
            if tooLarge || !head.isKeepAlive || request.asksForUpgrade { deadlines.lastRequest() }
            // A client that does not read its answers gets no more of them until it does: NIO's
            // pipelining handler reads the next request once this one's answer is passed down,
            // so answering now would queue answers in memory without end.
            if context.channel.isWritable {
                answer(request, tooLarge: tooLarge, on: context.channel)
            } else {
                waiting = (request, tooLarge)
            }
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        releaseBody()
    }

    private func releaseBody() {
        router.connections.releaseBody(claimed)
        claimed = 0
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { deadlines.answered() }
        context.write(data, promise: promise)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, let (request, tooLarge) = waiting {
            waiting = nil
            answer(request, tooLarge: tooLarge, on: context.channel)
        }
        context.fireChannelWritabilityChanged()
    }

    private func answer(_ request: GatewayRequest, tooLarge: Bool, on channel: any Channel) {
        if tooLarge {
            router.countRefusal(.payloadTooLarge)
            GatewayRouter.send(
                .refusal(
                    .payloadTooLarge, "too_large",
                    "too large: a request body may hold at most \(router.maxBodyBytes) bytes (server.max_line_bytes)"),
                to: channel, for: request, keepAlive: false)
        } else {
            let router = self.router
            Task { await router.serve(request, on: channel) }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // An upgrade refused (by the access checks, or for its headers): the request comes
        // here next, and its refusal is answered like any other.
        if error is NIOWebSocketUpgradeError { return }
        // A broken request or a TLS failure: nothing more can be understood on this connection.
        router.logger.debug("gateway connection closed on an error", metadata: ["error": "\(error)"])
        context.close(promise: nil)
    }
}
