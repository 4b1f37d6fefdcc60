import Foundation
public import ScanBridgeModel

/// One JSON-RPC 2.0 message as received, classified.
public enum IncomingMessage: Sendable, Hashable {
    case request(id: JSONValue, method: String, params: JSONValue?)
    case notification(method: String, params: JSONValue?)
    case result(id: JSONValue, result: JSONValue)
    case error(id: JSONValue, error: RPCError)
    /// Not a valid message: answered with this error (id null when it had none usable).
    case invalid(id: JSONValue, error: RPCError)

    /// A received line: one message, a batch, or something that is not JSON at all.
    public enum Line: Sendable, Hashable {
        case single(IncomingMessage)
        case batch([IncomingMessage])
        case unparsable(RPCError)
    }

    /// Parses one line (without its terminator).
    public static func parse(_ bytes: some Collection<UInt8>) -> Line {
        let value: JSONValue
        do {
            value = try JSONValue(parsing: bytes)
        } catch {
            return .unparsable(
                RPCError(
                    code: RPCError.parseError,
                    message: "parse error: the line is not valid JSON in UTF-8; send one JSON-RPC 2.0 object per line"))
        }
        switch value {
        case .array(let elements):
            guard !elements.isEmpty else {
                return .single(
                    .invalid(
                        id: .null,
                        error: RPCError(
                            code: RPCError.invalidRequest, message: "invalid request: an empty batch; send at least one request"))
                )
            }
            return .batch(elements.map(classify))
        default:
            return .single(classify(value))
        }
    }

    static func classify(_ value: JSONValue) -> IncomingMessage {
        guard case .object(let members) = value else {
            return invalid(.null, "a JSON-RPC message must be an object, not \(value.typeName)")
        }
        let id = members["id"]
        let usableID: JSONValue
        switch id {
        case nil, .null?, .string?, .int?, .double?: usableID = id ?? .null
        default: return invalid(.null, "id must be a string, a number or null")
        }
        guard members["jsonrpc"] == .string("2.0") else {
            return invalid(usableID, "\"jsonrpc\" must be \"2.0\"")
        }
        if let method = members["method"] {
            guard case .string(let name) = method else { return invalid(usableID, "\"method\" must be a string") }
            let params = members["params"]
            switch params {
            case nil, .object?, .array?: break
            default: return invalid(usableID, "\"params\" must be an object or an array")
            }
            return id == nil ? .notification(method: name, params: params) : .request(id: usableID, method: name, params: params)
        }
        if let result = members["result"], id != nil {
            return .result(id: usableID, result: result)
        }
        if let error = members["error"]?.objectValue, let code = error["code"]?.intValue, id != nil {
            return .error(
                id: usableID,
                error: RPCError(
                    code: Int(code), message: error["message"]?.stringValue ?? "", data: error["data"]))
        }
        return invalid(usableID, "a message needs a \"method\" (request) or a \"result\"/\"error\" (response)")
    }

    private static func invalid(_ id: JSONValue, _ why: String) -> IncomingMessage {
        .invalid(id: id, error: RPCError(code: RPCError.invalidRequest, message: "invalid request: \(why)"))
    }
}
