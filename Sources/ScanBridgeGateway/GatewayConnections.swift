import NIOCore
import NIOHTTP1
import NIOWebSocket
import ScanBridgeServer
import Synchronization

/// The gateway's open connections, over every listener: bounded by `http.max_connections`
/// and, from one address, by `http.max_connections_per_address`; the WebSockets and event
/// streams of one token by `http.max_streams_per_token`. Counted by transport, and closed
/// together when the daemon stops.
///
/// At a bound, the connection that has waited longest for a request gives its place to the
/// new one (docs/architecture.md, Design decisions): slow or idle sockets cannot keep a POS
/// out, and only when every place is answering or streaming is the new one refused.
final class GatewayConnections: Sendable {
    typealias Transport = ServerMetrics.Transport

    private struct Entry {
        var channel: any Channel
        var transport: Transport
        var address: String?
        /// The id of the token a WebSocket or event stream was opened with.
        var token: String?
        /// Since when it has been waiting for a request; nil while one is answered or streamed.
        var waitingSince: NIODeadline?
    }

    private struct State {
        var open: [ObjectIdentifier: Entry] = [:]
        var byTransport: [Transport: Int] = [:]
        var byAddress: [String: Int] = [:]
        var streamsByToken: [String: Int] = [:]
        /// Calls (a batch's each) running over `POST /v1/rpc`, by token.
        var callsByToken: [String: Int] = [:]
        /// Refused connections still open for their 503 (`RefusedConnection`).
        var answeringRefusals = 0
        /// Bytes of request bodies read and not yet handed on, every connection's together.
        var bodyBytes = 0
        /// Bytes of `POST /v1/rpc` answers not yet written to their sockets, by token.
        var answerBytesByToken: [String: Int] = [:]
        var closing = false
    }

    private let state = Mutex(State())
    let limit: Int
    let limitPerAddress: Int
    let streamsPerToken: Int
    /// Calls one token may have running over `POST /v1/rpc`, its requests together: what one
    /// socket connection may have pending (`server.pending_requests`).
    let callsPerToken: Int
    private let metrics: ServerMetrics

    /// The most bytes of request bodies held at once, every connection's together: a body is
    /// read before its token is checked, and each connection's own bound
    /// (`server.max_line_bytes`) times every place would be far more than the daemon's budget.
    let bodyCapacity: Int
    /// The bytes of `POST /v1/rpc` answers one token may have waiting unread, its requests
    /// together: what one socket connection may have (`server.connection_buffer_bytes`).
    let answerBytesPerToken: Int

    init(
        limit: Int, limitPerAddress: Int, streamsPerToken: Int, callsPerToken: Int, bodyCapacity: Int,
        answerBytesPerToken: Int, metrics: ServerMetrics
    ) {
        self.answerBytesPerToken = answerBytesPerToken
        self.limit = limit
        self.limitPerAddress = limitPerAddress
        self.streamsPerToken = streamsPerToken
        self.callsPerToken = callsPerToken
        self.bodyCapacity = bodyCapacity
        self.metrics = metrics
    }

    /// Counts `bytes` more of a request body held; false, and nothing counted, past
    /// `bodyCapacity`.
    func claimBody(_ bytes: Int) -> Bool {
        state.withLock { state in
            guard state.bodyBytes + bytes <= bodyCapacity else { return false }
            state.bodyBytes += bytes
            return true
        }
    }

    /// Whether `token` may have another `POST /v1/rpc` run: fewer than `answerBytesPerToken`
    /// bytes of its answers wait unwritten. Asked before the calls run, so none is run whose
    /// answer has no room.
    func answersHaveRoom(for token: String) -> Bool {
        state.withLock { $0.answerBytesByToken[token, default: 0] < answerBytesPerToken }
    }

    /// Counts an answer of `bytes` for `token` until `written` is called.
    func claimAnswer(_ bytes: Int, token: String) -> @Sendable () -> Void {
        state.withLock { $0.answerBytesByToken[token, default: 0] += bytes }
        return { self.state.withLock { Self.lower(&$0.answerBytesByToken, token, by: bytes) } }
    }

    /// The refusal of a call while its token's answers wait.
    var tooManyAnswers: GatewayResponse {
        .overloaded(
            "this token's answers hold \(answerBytesPerToken) bytes its clients have not read, its limit (server.connection_buffer_bytes); read them"
        )
    }

    /// Bytes `claimBody` counted are held no more.
    func releaseBody(_ bytes: Int) {
        guard bytes > 0 else { return }
        state.withLock { $0.bodyBytes -= bytes }
    }

    /// The refusal of a body past `bodyCapacity`.
    var tooManyBodies: GatewayResponse {
        .overloaded(
            "the gateway holds \(bodyCapacity) bytes of request bodies, its limit (a quarter of server.total_buffer_bytes); try again"
        )
    }

    /// What `admit` decided.
    enum Admission {
        case admitted
        /// Every place, or every place of its address, is answering or streaming.
        case refused(perAddress: Bool)
    }

    /// Counts a new connection as `http`, waiting for its first request, and gives it a place;
    /// at a bound, the longest-waiting connection (of its address, at that bound) is closed
    /// for it. Its place is given back when the channel closes.
    func admit(_ channel: any Channel) -> Admission {
        let address = channel.remoteAddress?.ipAddress
        let decided = state.withLock { state -> (Admission, evicted: (any Channel)?) in
            guard !state.closing else { return (.refused(perAddress: false), nil) }
            var evicted: (any Channel)?
            let full = address.map { state.byAddress[$0, default: 0] >= limitPerAddress } ?? false
            if full || state.open.count >= limit {
                guard let victim = Self.longestWaiting(in: state, from: full ? address : nil) else {
                    return (.refused(perAddress: full), nil)
                }
                evicted = remove(victim, in: &state)
            }
            state.open[ObjectIdentifier(channel)] = Entry(
                channel: channel, transport: .http, address: address, waitingSince: .now())
            if let address { state.byAddress[address, default: 0] += 1 }
            count(.http, by: 1, in: &state)
            return (.admitted, evicted)
        }
        guard case .admitted = decided.0 else { return decided.0 }
        decided.evicted?.close(promise: nil)
        channel.closeFuture.whenComplete { _ in
            self.state.withLock { _ = self.remove(ObjectIdentifier(channel), in: &$0) }
        }
        return .admitted
    }

    /// The connection that has waited longest for a request, of `address` when given. A new
    /// connection is the youngest, so the last to give way: a POS's request, sent with its
    /// connection, is read long before as many connections as its address has places come
    /// after it. Connections answering or streaming never give way.
    private static func longestWaiting(in state: State, from address: String?) -> ObjectIdentifier? {
        var oldest: (key: ObjectIdentifier, since: NIODeadline)?
        for (key, entry) in state.open {
            guard let since = entry.waitingSince, address == nil || entry.address == address else { continue }
            if oldest == nil || since < oldest!.since { oldest = (key, since) }
        }
        return oldest?.key
    }

    /// Forgets a connection and its counts; its channel, when it was still counted.
    private func remove(_ key: ObjectIdentifier, in state: inout State) -> (any Channel)? {
        guard let entry = state.open.removeValue(forKey: key) else { return nil }
        if let address = entry.address { Self.lower(&state.byAddress, address, by: 1) }
        if let token = entry.token { Self.lower(&state.streamsByToken, token, by: 1) }
        count(entry.transport, by: -1, in: &state)
        return entry.channel
    }

    /// The connection waits for a request (`true`), or has one to answer (`false`).
    func waiting(_ channel: any Channel, _ waiting: Bool) {
        state.withLock { state in
            state.open[ObjectIdentifier(channel)]?.waitingSince = waiting ? .now() : nil
        }
    }

    /// The connection becomes a WebSocket or an event stream of `token`; false, and nothing
    /// changed, when the token holds `streamsPerToken` of them already.
    func claimStream(_ channel: any Channel, as transport: Transport, token: String) -> Bool {
        state.withLock { state in
            guard state.streamsByToken[token, default: 0] < streamsPerToken else { return false }
            guard let entry = state.open[ObjectIdentifier(channel)] else { return true }
            count(entry.transport, by: -1, in: &state)
            state.open[ObjectIdentifier(channel)] = Entry(
                channel: channel, transport: transport, address: entry.address, token: token, waitingSince: nil)
            state.streamsByToken[token, default: 0] += 1
            count(transport, by: 1, in: &state)
            return true
        }
    }

    /// The refusal of a stream past `streamsPerToken`.
    var tooManyStreams: GatewayResponse {
        .overloaded(
            "this token has \(streamsPerToken) WebSockets and event streams open, its limit (http.max_streams_per_token); close one, or give each device a token of its own"
        )
    }

    /// Refused connections that may wait for their 503 at once; past it, a refused connection
    /// is closed without one: a flood of connections must not hold the daemon's descriptors
    /// while it is refused.
    static let maxAnsweringRefusals = 64

    /// Whether the refused `channel` may be answered; its place among them is given back when
    /// it closes.
    func mayAnswerRefusal(of channel: any Channel) -> Bool {
        let may = state.withLock { state in
            guard state.answeringRefusals < Self.maxAnsweringRefusals else { return false }
            state.answeringRefusals += 1
            return true
        }
        if may { channel.closeFuture.whenComplete { _ in self.state.withLock { $0.answeringRefusals -= 1 } } }
        return may
    }

    /// Counts `calls` more running for `token`; false, and nothing counted, when they would
    /// pass `callsPerToken`. A token with none running may always run one request, however
    /// large its batch (`server.max_batch` bounds it).
    func claimCalls(_ calls: Int, token: String) -> Bool {
        state.withLock { state in
            let running = state.callsByToken[token, default: 0]
            guard running == 0 || running + calls <= callsPerToken else { return false }
            state.callsByToken[token] = running + calls
            return true
        }
    }

    /// The calls `claimCalls` counted have been answered.
    func endCalls(_ calls: Int, token: String) {
        state.withLock { Self.lower(&$0.callsByToken, token, by: calls) }
    }

    /// Takes `amount` off `key`'s count, forgetting a key that has none left.
    private static func lower(_ counts: inout [String: Int], _ key: String, by amount: Int) {
        let left = counts[key, default: amount] - amount
        counts[key] = left > 0 ? left : nil
    }

    /// The refusal of calls past `callsPerToken`.
    var tooManyCalls: GatewayResponse {
        .overloaded(
            "this token has \(callsPerToken) calls running over POST /v1/rpc, its limit (server.pending_requests); wait for their answers"
        )
    }

    /// Whether `token` may open another WebSocket or event stream now.
    func admitsStream(of token: String) -> Bool {
        state.withLock { $0.streamsByToken[token, default: 0] < streamsPerToken }
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
            return state.open.values.map { (channel: $0.channel, transport: $0.transport) }
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
