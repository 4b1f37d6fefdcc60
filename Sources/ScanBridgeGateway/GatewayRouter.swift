import Logging
import NIOCore
import NIOHTTP1
import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeServer
import Synchronization

/// Answers the gateway's requests: each is checked (`GatewayAccess`) and then served by its
/// endpoint (docs/protocol.md, Web and network access).
final class GatewayRouter: Sendable {
    let services: ServerServices
    let settings: GatewaySettings
    let access: GatewayAccess
    let connections: GatewayConnections
    let webRoot: GatewayWebRoot
    let logger: Logger
    /// Why the daemon is not ready; none when it is.
    let readiness: @Sendable () async -> [String]
    let flushes = LoopFlushesByLoop()
    private let lastConnectionNumber = Atomic<Int>(0)

    init(
        services: ServerServices, settings: GatewaySettings, connections: GatewayConnections, logger: Logger,
        readiness: @escaping @Sendable () async -> [String]
    ) {
        self.services = services
        self.settings = settings
        self.access = GatewayAccess(settings: settings, tokens: services.tokens)
        self.connections = connections
        self.webRoot = GatewayWebRoot(path: settings.webRoot)
        self.logger = logger
        self.readiness = readiness
    }

    /// The largest request body: as long as a line on the Unix socket may be.
    var maxBodyBytes: Int { services.limits.maxLineBytes }

    /// A number for the logs and ids of a WebSocket or event stream.
    func nextConnectionNumber() -> Int {
        lastConnectionNumber.wrappingAdd(1, ordering: .relaxed).newValue
    }

    func serve(_ request: GatewayRequest, on channel: any Channel) async {
        let response: GatewayResponse?
        switch (request.method, request.path) {
        case (.GET, "/healthz"), (.HEAD, "/healthz"):
            response = await checked(request, needsToken: false) { _ in
                .json(.ok, Array(#"{"status":"ok"}"#.utf8))
            }
        case (.GET, "/readyz"), (.HEAD, "/readyz"):
            response = await checked(request, needsToken: true) { _ in await self.ready() }
        case (.GET, "/metrics"), (.HEAD, "/metrics"):
            response = await checked(request, needsToken: !settings.metricsPublic) { _ in self.metrics() }
        case (.POST, "/v1/rpc"):
            response = await checked(request, needsToken: true) { token in
                await self.call(request, token: token!, on: channel)
            }
        case (.GET, "/v1/ws"):
            // An upgrade the access checks allowed never gets here (`GatewayRouter+WebSocket`),
            // unless its token holds all the streams it may.
            response = await checked(request, needsToken: true) { token in
                if request.asksForUpgrade, let token, !self.connections.admitsStream(of: token.id) {
                    self.services.serverMetrics.refused(.overloaded)
                    return self.connections.tooManyStreams
                }
                return .refusal(
                    .upgradeRequired, "upgrade_required",
                    "upgrade required: /v1/ws is a WebSocket endpoint; open it with a WebSocket client")
            }
        case (.GET, "/v1/events") where request.asksForUpgrade:
            response = .refusal(
                .badRequest, "bad_request", "bad request: /v1/events is an event stream, not an upgrade; send no Upgrade header")
        case (.GET, "/v1/events"):
            switch await access.check(request, needsToken: true) {
            case .refused(let refusal): response = refusal
            case .allowed(let token): response = await streamEvents(request, token: token!, on: channel)
            }
        case (.OPTIONS, _):
            response = preflight(request)
        case (_, "/healthz"), (_, "/readyz"), (_, "/metrics"), (_, "/v1/rpc"), (_, "/v1/ws"), (_, "/v1/events"):
            response = .refusal(
                .methodNotAllowed, "method_not_allowed", "method not allowed: \(request.method) is not served at \(request.path)")
        case (.GET, _), (.HEAD, _):
            response = await checked(request, needsToken: false) { _ in await self.webRoot.response(for: request.path) }
        default:
            response = .refusal(
                .methodNotAllowed, "method_not_allowed", "method not allowed: the page and its files are read with GET")
        }
        // An event stream wrote its own head and keeps the connection.
        guard var response else { return }
        // A refusal too, so that a page's script reads its JSON reason rather than an opaque
        // CORS failure; what it refused stays refused.
        if let origin = request.origin {
            response.headers.replaceOrAdd(name: "Access-Control-Allow-Origin", value: origin)
            response.headers.add(name: "Vary", value: "Origin")
        }
        if response.status.code >= 400 {
            countRefusal(response.status)
            logger.info(
                "gateway request refused",
                metadata: ["http.request": "\(request.logDescription)", "http.status": "\(response.status.code)"])
        }
        Self.send(response, to: channel, for: request, keepAlive: request.head.isKeepAlive && !request.asksForUpgrade)
    }

    /// Counts a refusal in `scanbridge_requests_refused_total`, by the reason its status says.
    func countRefusal(_ status: HTTPResponseStatus) {
        switch status {
        case .unauthorized: services.serverMetrics.refused(.unauthorized)
        case .forbidden: services.serverMetrics.refused(.forbidden)
        case .payloadTooLarge: services.serverMetrics.refused(.tooLarge)
        default: break
        }
    }

    /// Runs `serve` when the access checks allow the request, else answers their refusal.
    private func checked(
        _ request: GatewayRequest, needsToken: Bool, _ serve: (AuthenticatedToken?) async -> GatewayResponse
    ) async -> GatewayResponse {
        switch await access.check(request, needsToken: needsToken) {
        case .refused(let refusal): refusal
        case .allowed(let token): await serve(token)
        }
    }

    private func ready() async -> GatewayResponse {
        let reasons = await readiness()
        guard !reasons.isEmpty else { return .json(.ok, Array(#"{"status":"ready"}"#.utf8)) }
        var body = Array(#"{"status":"unready","reasons":["#.utf8)
        for (index, reason) in reasons.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            JSONOutput.appendString(reason, to: &body)
        }
        body.append(contentsOf: "]}".utf8)
        return .json(.serviceUnavailable, body)
    }

    private func metrics() -> GatewayResponse {
        guard let metrics = services.metrics else {
            return .refusal(.notFound, "not_found", "not found: this daemon keeps no metrics")
        }
        return GatewayResponse(status: .ok, contentType: MetricSeries.contentType, body: metrics())
    }

    /// A CORS preflight: answered for origins in `http.origins` (a preflight carries no token).
    private func preflight(_ request: GatewayRequest) -> GatewayResponse {
        guard let host = request.head.headers.first(name: "Host"), access.allows(host: host),
            let origin = request.origin, settings.origins.contains(origin)
        else {
            return .refusal(
                .forbidden, "forbidden_origin",
                "forbidden: cross-origin calls are allowed only from the origins in http.origins")
        }
        var response = GatewayResponse.noContent
        response.headers.add(name: "Access-Control-Allow-Methods", value: "GET, POST, OPTIONS")
        response.headers.add(name: "Access-Control-Allow-Headers", value: "Authorization, Content-Type, Last-Event-ID")
        response.headers.add(name: "Access-Control-Max-Age", value: "600")
        // Chrome's Private Network Access preflight: harmless to answer, not relied on.
        if request.head.headers.first(name: "Access-Control-Request-Private-Network") == "true" {
            response.headers.add(name: "Access-Control-Allow-Private-Network", value: "true")
        }
        return response
    }

    /// Writes a whole response; closes the connection after it unless `keepAlive`.
    static func send(_ response: GatewayResponse, to channel: any Channel, for request: GatewayRequest, keepAlive: Bool) {
        var headers = response.headers
        headers.replaceOrAdd(name: "Content-Length", value: "\(response.body.count)")
        headers.replaceOrAdd(name: "X-Content-Type-Options", value: "nosniff")
        if !headers.contains(name: "Cache-Control") { headers.add(name: "Cache-Control", value: "no-store") }
        if !keepAlive { headers.replaceOrAdd(name: "Connection", value: "close") }
        let head = HTTPResponseHead(version: request.head.version, status: response.status, headers: headers)
        channel.write(HTTPServerResponsePart.head(head), promise: nil)
        if request.method != .HEAD && !response.body.isEmpty {
            channel.write(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(bytes: response.body))), promise: nil)
        }
        let written = channel.writeAndFlush(HTTPServerResponsePart.end(nil))
        if let done = response.written { written.whenComplete { _ in done() } }
        if !keepAlive { written.whenComplete { _ in channel.close(promise: nil) } }
    }
}
