import NIOCore
import NIOWebSocket
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

    /// Refuses new connections and closes the open ones: a WebSocket after a close frame
    /// 1001 (going away), so its client knows to reconnect rather than guess; one whose
    /// client reads nothing, after a second at most. Returns once every one is closed.
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
            channel.eventLoop.scheduleTask(in: .seconds(1)) { channel.close(promise: nil) }
            var data = channel.allocator.buffer(capacity: 64)
            data.write(webSocketErrorCode: .goingAway)
            data.writeString("the daemon is stopping; reconnect")
            channel.writeAndFlush(WebSocketFrame(fin: true, opcode: .connectionClose, data: data)).whenComplete { _ in
                channel.close(promise: nil)
            }
        }
        for (channel, _) in open { try? await channel.closeFuture.get() }
    }
}
