import Logging
import ScanBridgeCore
import ScanBridgeRPC

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

/// Finds the method, checks the caller's role, runs it, and turns any error into the
/// JSON-RPC error the protocol names.
struct RPCDispatcher: Sendable {
    let methods: [String: RPCMethod]

    static let standard = RPCDispatcher(methods: BridgeMethods.all
        .merging(DeviceMethods.all) { $1 }
        .merging(EventMethods.all) { $1 }
        .merging(MockMethods.all) { $1 }
        .merging(ProductMethods.all) { $1 }
        .merging(CardMethods.all) { $1 }
        .merging(CustomerMethods.all) { $1 }
        .merging(OrderMethods.all) { $1 }
        .merging(HandlerMethods.all) { $1 })

    /// The answer to send (nil for notifications and responses), and work to run after it is queued.
    func answer(_ message: IncomingMessage, on connection: Connection) async -> (Payload?, (@Sendable () async -> Void)?) {
        switch message {
        case .request(let id, let method, let params):
            do {
                let outcome = try await call(method, params, on: connection)
                return (RPCMessage.responsePayload(id: id, result: outcome.result), outcome.afterResponse)
            } catch {
                return (RPCMessage.errorPayload(id: id, ErrorMapping.rpcError(for: error, method: method, logger: connection.logger)), nil)
            }
        case .notification(let method, let params):
            // A notification gets no answer, not even an error (JSON-RPC 2.0 §4.1).
            let outcome = try? await call(method, params, on: connection)
            return (nil, outcome?.afterResponse)
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

    /// An answer to a request the daemon sent (`handler.resolve`); one nobody waits for is dropped.
    private func answerDaemonRequest(_ id: JSONValue, _ answer: DaemonRequests.Answer, on connection: Connection) {
        if !connection.daemonRequests.answer(id: id, with: answer) {
            connection.logger.debug("answer to no waiting request dropped", metadata: ["rpc.id": "\(id)"])
        }
    }

    private func call(_ method: String, _ params: JSONValue?, on connection: Connection) async throws -> MethodOutcome {
        guard let run = methods[method] else {
            throw RPCError(
                code: RPCError.methodNotFound,
                message: "method not found: '\(method)' is not a ScanBridge method; see PROTOCOL.md for the list")
        }
        let required = MethodCatalog.requiredRole(for: method)
        guard connection.role >= required else {
            throw RPCError(
                code: RPCError.forbidden,
                message: "forbidden: \(method) needs the \(required) role and this connection has \(connection.role); ask an administrator to add your user to the \(required) group")
        }
        return try await run(try Params(params), connection)
    }
}
