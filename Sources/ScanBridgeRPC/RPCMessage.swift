import Foundation
public import ScanBridgeModel

/// Builds the JSON-RPC 2.0 messages the daemon and clients send.
public enum RPCMessage {
    public static func response(id: JSONValue, result: Payload) -> [UInt8] {
        JSONWriter.bytes(responsePayload(id: id, result: result))
    }

    /// A response as a payload, to stand alone or in a batch's array.
    public static func responsePayload(id: JSONValue, result: Payload) -> Payload {
        .object([("jsonrpc", .string("2.0")), ("id", .value(id)), ("result", result)])
    }

    public static func error(id: JSONValue, _ error: RPCError) -> [UInt8] {
        JSONWriter.bytes(errorPayload(id: id, error))
    }

    public static func errorPayload(id: JSONValue, _ error: RPCError) -> Payload {
        var body: [(String, Payload)] = [("code", .int(error.code)), ("message", .string(error.message))]
        if let data = error.data { body.append(("data", .value(data))) }
        return .object([("jsonrpc", .string("2.0")), ("id", .value(id)), ("error", .object(body))])
    }

    public static func notification(method: String, params: Payload) -> [UInt8] {
        JSONWriter.bytes(.object([("jsonrpc", .string("2.0")), ("method", .string(method)), ("params", params)]))
    }

    public static func request(id: JSONValue, method: String, params: Payload) -> [UInt8] {
        JSONWriter.bytes(
            .object([("jsonrpc", .string("2.0")), ("id", .value(id)), ("method", .string(method)), ("params", params)]))
    }
}

/// A JSON-RPC error object.
public struct RPCError: Error, Sendable, Hashable, CustomStringConvertible {
    public var code: Int
    public var message: String
    public var data: JSONValue?

    public init(code: Int, message: String, data: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }

    public var description: String { "\(message) (\(code))" }

    // The codes of docs/protocol.md "Errors".
    public static let parseError = -32700
    public static let invalidRequest = -32600
    public static let methodNotFound = -32601
    public static let invalidParams = -32602
    public static let internalError = -32603
    public static let notFound = -32001
    public static let conflict = -32002
    public static let forbidden = -32003
    public static let unavailable = -32004
    public static let overloaded = -32005
    /// Every code above, so that the tests can hold the documented error lists to them: a
    /// code added here and missing from contract/openrpc.json fails a test.
    package static let allCodes: Set<Int> = [
        parseError, invalidRequest, methodNotFound, invalidParams, internalError, notFound, conflict, forbidden,
        unavailable, overloaded,
    ]
}
