public import ScanBridgeModel
public import ScanBridgeRPC

/// A request the daemon sent to this client, such as `handler.resolve` to a client that
/// registered a handler with `handlers.register` (docs/protocol.md "Handlers").
public struct DaemonRequest: Sendable, Hashable {
    /// The request's id, echoed in the response by the client.
    public var id: JSONValue
    /// `handler.resolve`, or another method the daemon asks clients to answer.
    public var method: String
    /// The params object; an empty object when the daemon sent none.
    public var params: JSONValue

    /// A request as received (or built by a test).
    public init(id: JSONValue, method: String, params: JSONValue) {
        self.id = id
        self.method = method
        self.params = params
    }
}

/// Answers a daemon request: the returned payload becomes the response's `result`; a thrown
/// `RPCError` becomes its `error`, and any other error an internal error naming it.
public typealias DaemonRequestHandler = @Sendable (DaemonRequest) async throws -> Payload
