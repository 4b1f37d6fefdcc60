import NIOCore
import NIOWebSocket
import ScanBridgeServer
import Synchronization

/// The gateway's open connections, over every listener: bounded by `http.max_connections`,
/// counted by transport, and closed together when the daemon stops.
final class GatewayConnections: Sendable {
    typealias Transport = ServerMetrics.Transport

    private struct State {
        var open: [ObjectIdentifier: (channel: any Channel, transport: Transport)] = [:]
        var byTransport: [Transport: Int] = [:]
        var closing = false
    }

    private let state = Mutex(State())
    let limit: Int
    private let metrics: ServerMetrics

    init(limit: Int, metrics: ServerMetrics) {
        self.limit = limit
        self.metrics = metrics
    }

    /// Counts a new connection as `http`; false when the limit is reached or the gateway stops.
    /// Its place is given back when the channel closes.
    func admit(_ channel: any Channel) -> Bool {
        let admitted = state.withLock { state in
            guard !state.closing, state.open.count < limit else { return false }
            state.open[ObjectIdentifier(channel)] = (channel, .http)
            count(.http, by: 1, in: &state)
            return true
        }
        guard admitted else { return false }
        channel.closeFuture.whenComplete { _ in
            self.state.withLock { state in
                guard let entry = state.open.removeValue(forKey: ObjectIdentifier(channel)) else { return }
                self.count(entry.transport, by: -1, in: &state)
            }
        }
        return true
    }

    /// The connection became a WebSocket or an event stream.
    func change(_ channel: any Channel, to transport: Transport) {
        state.withLock { state in
            guard let entry = state.open[ObjectIdentifier(channel)] else { return }
            count(entry.transport, by: -1, in: &state)
            state.open[ObjectIdentifier(channel)] = (channel, transport)
            count(transport, by: 1, in: &state)
        }
    }

    /// The one place the gateway's connections are counted by transport, for `counts` and
    /// for the `scanbridge_connections` gauge.
    private func count(_ transport: Transport, by change: Int, in state: inout State) {
        state.byTransport[transport, default: 0] += change
        if change > 0 { metrics.connected(transport) } else { metrics.disconnected(transport) }
    }

    /// How many are open now, by transport.
    var counts: [Transport: Int] { state.withLock { $0.byTransport } }

    /// How long a closing connection may take: its close frame written, or its TLS close
    /// answered. A client that reads nothing holds nothing longer than this.
    static let closeGrace = TimeAmount.milliseconds(250)

    /// Refuses new connections and closes the open ones: a WebSocket after a close frame
    /// 1001 (going away), so its client knows to reconnect rather than guess. Returns once
    /// every one is closed, or after a bounded wait: a client that reads nothing, or never
    /// answers a TLS close, must not hold the daemon's stop.
    func closeAll() async {
        let open = state.withLock { state in
            state.closing = true
            return Array(state.open.values)
        }
        for (channel, transport) in open {
            guard transport == .websocket else {
                channel.close(promise: nil)
                continue
            }
            Self.close(
                channel,
                after: .close(.goingAway, "the daemon is stopping; reconnect", allocator: channel.allocator))
        }
        guard let loop = open.first?.channel.eventLoop else { return }
        // Whichever comes first; a promise's second completion is ignored.
        let done = loop.makePromise(of: Void.self)
        EventLoopFuture.andAllComplete(open.map(\.channel.closeFuture), on: loop).whenComplete { _ in done.succeed() }
        loop.scheduleTask(in: Self.closeGrace * 3) { done.succeed() }
        try? await done.futureResult.get()
    }

    /// Writes `farewell` and closes the channel, at once if the client reads nothing.
    static func close(_ channel: any Channel, after farewell: WebSocketFrame) {
        channel.eventLoop.scheduleTask(in: closeGrace) { channel.close(promise: nil) }
        channel.writeAndFlush(farewell).whenComplete { _ in channel.close(promise: nil) }
    }
}
