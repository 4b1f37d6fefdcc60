import Foundation
import Logging
import NIOCore
import NIOHTTP1
import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeServer

extension GatewayRouter {
    /// How often an idle event stream gets a comment, so that proxies do not cut it.
    static let keepAliveInterval = TimeAmount.seconds(15)

    /// `GET /v1/events`: a subscription whose events and notices are written as Server-Sent
    /// Events. Returns a refusal, or nil once the stream has started (it keeps the connection).
    func streamEvents(_ request: GatewayRequest, token: AuthenticatedToken, on channel: any Channel) async
        -> GatewayResponse?
    {
        let filter: SubscriptionFilter
        let since: UInt64?
        do {
            (filter, since) = try Self.subscription(of: request)
        } catch {
            return .refusal(.badRequest, "bad_request", "bad request: \(error.message)")
        }
        guard connections.claimStream(channel, as: .sse, token: token.id) else {
            services.serverMetrics.refused(.overloaded)
            return connections.tooManyStreams
        }
        let bridge = services.bridge
        let limits = services.limits
        let writer = SocketWriter(channel: channel, framing: .eventStream, flushes: flushes.flushes(for: channel.eventLoop))
        let outbox = Outbox(
            subscriptionCapacity: limits.subscriptionQueue, responseCapacity: limits.pendingRequests,
            byteCapacity: limits.connectionBufferBytes, budget: services.buffers, onReady: { writer.schedule() })
        writer.attach(outbox)
        let number = nextConnectionNumber()
        let logger = connectionLogger("sse\(number)", token: token)
        let sink = EventStreamSink(outbox: outbox, role: token.role) {
            logger.warning("event stream reader too slow; stream ended")
            // What is queued, `event: overflow` last, goes out; then the stream ends.
            outbox.finish()
            Task {
                await outbox.drained()
                try? await channel.writeAndFlush(HTTPServerResponsePart.end(nil))
                try? await channel.close()
            }
        }
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/event-stream; charset=utf-8")
        headers.add(name: "Cache-Control", value: "no-cache")
        headers.add(name: "X-Accel-Buffering", value: "no")
        headers.add(name: "X-Content-Type-Options", value: "nosniff")
        if let origin = request.origin {
            headers.add(name: "Access-Control-Allow-Origin", value: origin)
            headers.add(name: "Vary", value: "Origin")
        }
        try? await channel.writeAndFlush(
            HTTPServerResponsePart.head(HTTPResponseHead(version: request.head.version, status: .ok, headers: headers)))
        if let watcher = try? await channel.pipeline.handler(type: WritabilityWatcher.self).get() {
            watcher.watch(with: writer)
        }
        let (subscription, head) = bridge.publisher.subscribe(
            id: "sse\(number)", filter: filter, sink: sink, replaying: since != nil, tier: .remote)
        let keepAlive = channel.eventLoop.scheduleRepeatedTask(
            initialDelay: Self.keepAliveInterval, delay: Self.keepAliveInterval
        ) { _ in
            if outbox.bytesQueued == 0 { outbox.enqueue(EventStreamSink.keepAlive) }
        }
        let watch = closing(channel, when: token)
        channel.closeFuture.whenComplete { _ in
            keepAlive.cancel()
            watch?.cancel()
            bridge.publisher.remove(subscription)
            outbox.forget(subscription, droppingQueued: true)
            outbox.abandon()
            logger.debug("event stream closed")
        }
        logger.debug("event stream opened", metadata: ["since": "\(since.map(String.init) ?? "live")"])
        if let since {
            do {
                try await bridge.replay(subscription, after: since, through: head)
            } catch {
                logger.warning("replay stopped", metadata: ["error": "\(error)"])
                channel.close(promise: nil)
            }
        }
        return nil
    }

    /// The filter and start of a stream: `kinds`, `devices`, and `Last-Event-ID` over `since`.
    /// Internal, not private: FuzzGateway reads requests through it, with no stream to open.
    static func subscription(of request: GatewayRequest) throws(ScanBridgeError) -> (
        SubscriptionFilter, UInt64?
    ) {
        var kinds: Set<DeviceKind>?
        if let names = request.query["kinds"] {
            kinds = []
            for name in names.split(separator: ",") {
                guard let kind = DeviceKind(rawValue: String(name)) else {
                    throw ScanBridgeError.invalidParams(
                        "unknown kind '\(name)' in kinds; known kinds: \(DeviceKind.allCases.map(\.rawValue).joined(separator: ", "))",
                        field: "kinds")
                }
                kinds!.insert(kind)
            }
        }
        let devices = request.query["devices"].map { Set($0.split(separator: ",").map(String.init)) }
        let resume = request.head.headers.first(name: "Last-Event-ID").flatMap { $0.isEmpty ? nil : $0 }
        var since: UInt64?
        if let text = resume ?? request.query["since"] {
            guard let seq = UInt64(text.trimmingCharacters(in: .whitespaces)) else {
                throw ScanBridgeError.invalidParams(
                    "'\(text)' is not an event seq (a whole number)", field: resume != nil ? "Last-Event-ID" : "since")
            }
            since = seq
        }
        return (SubscriptionFilter(kinds: kinds, devices: devices), since)
    }
}
