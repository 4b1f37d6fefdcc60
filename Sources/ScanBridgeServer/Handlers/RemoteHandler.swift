import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeRPC

/// An out-of-process handler registered by a client (`handlers.register`): the events its
/// match accepts are sent to it as `handler.resolve` requests, and its answer becomes the
/// resolution. Silence past the timeout gives `timeout`; garbage gives `error`.
struct RemoteHandler: ScanHandler {
    let id: String
    let name: String
    let priority: Int
    let match: HandlerMatch
    let timeout: Duration
    let requests: DaemonRequests
    let send: @Sendable ([UInt8]) -> Void
    /// It waits on its client's answer.
    var resolvesInProcess: Bool { false }

    func accepts(_ event: ScanEvent) -> Bool {
        match.accepts(event)
    }

    func resolve(_ event: ScanEvent) async throws -> Resolution {
        let params = Payload.object([("handler", .string(id)), ("event", .raw(event.json()))])
        switch await requests.request(MethodCatalog.handlerResolve, params: params, timeout: timeout, send: send) {
        case .result(let result):
            guard case .object(var members) = result, case .string(let status)? = members["status"], !status.isEmpty else {
                return .error(
                    handler: name,
                    message:
                        "handler \(name) answered \(result.typeName) without a status string; a handler.resolve result must be an object such as {\"status\": \"found\"}"
                )
            }
            members["status"] = nil
            members["handler"] = nil
            return Resolution(handler: name, status: status, details: members)
        case .error(let error):
            return .error(handler: name, message: "handler \(name) failed: \(error.message)")
        case .timeout:
            return Resolution(handler: name, status: "timeout")
        case .unavailable(let why):
            return .error(handler: name, message: "handler \(name) could not be asked: \(why)")
        }
    }
}
