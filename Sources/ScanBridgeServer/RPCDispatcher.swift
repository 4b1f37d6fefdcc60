import Logging
import ScanBridgeCore
import ScanBridgeModel
package import ScanBridgeRPC

/// What a method produced: its result, and optionally work to run once the response is
/// queued (a `since` replay must follow the subscribe response, not precede it).
struct MethodOutcome: Sendable {
    var result: Payload
    var afterResponse: (@Sendable () async -> Void)?

    init(_ result: Payload, afterResponse: (@Sendable () async -> Void)? = nil) {
        self.result = result
        self.afterResponse = afterResponse
    }
}

typealias RPCMethod = @Sendable (Params, Connection) async throws -> MethodOutcome
/// A method's batch form: the params of a batch's calls to it, an outcome for each, in order.
typealias RPCBatchMethod = @Sendable ([Params], Connection) async -> [Result<MethodOutcome, any Error>]
/// What answering a message gives: the answer to send (nil for notifications and responses),
/// and work to run after it is queued.
package typealias Answer = (payload: Payload?, afterResponse: (@Sendable () async -> Void)?)

/// Finds the method, checks the caller's role, runs it, and turns any error into the
/// JSON-RPC error the protocol names.
package struct RPCDispatcher: Sendable {
    let methods: [String: RPCMethod]
    /// Methods whose calls in one batch run together (each also in `methods`).
    var batched: [String: RPCBatchMethod] = [:]

    static let standard = RPCDispatcher(
        methods: BridgeMethods.all
            .merging(DeviceMethods.all) { $1 }
            .merging(EventMethods.all) { $1 }
            .merging(MockMethods.all) { $1 }
            .merging(ProductMethods.all) { $1 }
            .merging(ProductCatalogMethods.all) { $1 }
            .merging(CardMethods.all) { $1 }
            .merging(CustomerMethods.all) { $1 }
            .merging(OrderMethods.all) { $1 }
            .merging(HandlerMethods.all) { $1 }
            .merging(StoreMethods.all) { $1 }
            .merging(TokenMethods.all) { $1 },
        batched: MockMethods.batched)

    /// The answer to one message.
    package func answer(_ message: IncomingMessage, on connection: Connection) async -> Answer {
        switch message {
        case .request(let id, let method, let params):
            return answer(id: id, method: method, await outcome(method, params, on: connection), on: connection)
        case .notification(let method, let params):
            return answer(id: nil, method: method, await outcome(method, params, on: connection), on: connection)
        case .invalid(let id, let error):
            return (RPCMessage.errorPayload(id: id, error), nil)
        case .result(let id, let result):
            answerDaemonRequest(id, .result(result), on: connection)
            return (nil, nil)
        case .error(let id, let error):
            answerDaemonRequest(id, .error(error), on: connection)
            return (nil, nil)
        }
    }

    /// A call's answer: its response or error for a request; nothing for a notification, which
    /// gets no answer, not even an error (JSON-RPC 2.0 §4.1).
    func answer(id: JSONValue?, method: String, _ outcome: Result<MethodOutcome, any Error>, on connection: Connection)
        -> Answer
    {
        switch outcome {
        case .success(let outcome):
            guard let id else { return (nil, outcome.afterResponse) }
            return (RPCMessage.responsePayload(id: id, result: outcome.result), outcome.afterResponse)
        case .failure(let error):
            if let refusal = ServerMetrics.RefusalReason(refusing: error) { connection.services.serverMetrics.refused(refusal) }
            guard let id else { return (nil, nil) }
            return (
                RPCMessage.errorPayload(id: id, ErrorMapping.rpcError(for: error, method: method, logger: connection.logger)), nil
            )
        }
    }

    /// An answer to a request the daemon sent (`handler.resolve`); one nobody waits for is dropped.
    private func answerDaemonRequest(_ id: JSONValue, _ answer: DaemonRequests.Answer, on connection: Connection) {
        if !connection.daemonRequests.answer(id: id, with: answer) {
            connection.logger.debug("answer to no waiting request dropped", metadata: ["rpc.id": "\(id)"])
        }
    }

    private func outcome(_ method: String, _ params: JSONValue?, on connection: Connection) async
        -> Result<MethodOutcome, any Error>
    {
        do {
            return .success(try await call(method, params, on: connection))
        } catch {
            return .failure(error)
        }
    }

    private func call(_ method: String, _ params: JSONValue?, on connection: Connection) async throws -> MethodOutcome {
        guard let run = methods[method] else {
            throw RPCError(
                code: RPCError.methodNotFound,
                message: "method not found: '\(method)' is not a ScanBridge method; see docs/protocol.md for the list")
        }
        return try await run(try permitted(method, params, on: connection), connection)
    }

    /// The params of a call the connection's role allows, checked; throws `forbidden` or `invalidParams`.
    func permitted(_ method: String, _ params: JSONValue?, on connection: Connection) throws -> Params {
        let required = MethodCatalog.requiredRole(for: method)
        guard connection.role >= required else {
            throw RPCError(
                code: RPCError.forbidden,
                message:
                    "forbidden: \(method) needs the \(required) role and this connection has \(connection.role); ask an administrator to add your user to the \(required) group"
            )
        }
        if case .token = connection.identity, MethodCatalog.isSocketOnly(method) {
            throw RPCError(
                code: RPCError.forbidden,
                message:
                    "forbidden: \(method) is served on the daemon's Unix socket only, never over the network; run scanbridge on the counter"
            )
        }
        if connection.isOneShot, MethodCatalog.needsOpenConnection(method) {
            throw RPCError(
                code: RPCError.methodNotFound,
                message:
                    "method not found over HTTP: \(method) needs a connection that stays open; call it over the WebSocket /v1/ws"
            )
        }
        return try Params(params)
    }
}
