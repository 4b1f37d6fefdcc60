/// What the domain handler that took an event answered (docs/protocol.md "Resolutions").
public struct Resolution: Sendable, Hashable {
    /// The handler's name, or nil when no handler took the event.
    public var handler: String?
    /// `found`, `not_found`, `identified`, `unhandled`, `error`, `timeout`…
    public var status: String
    /// Every other field of the answer (`product`, `card`, `message`…).
    public var details: [String: JSONValue]

    public init(handler: String?, status: String, details: [String: JSONValue] = [:]) {
        self.handler = handler
        self.status = status
        self.details = details
    }

    public static let unhandled = Resolution(handler: nil, status: "unhandled")

    /// A handler failed: the event is still published, with this resolution.
    public static func error(handler: String, message: String) -> Resolution {
        Resolution(handler: handler, status: "error", details: ["message": .string(message)])
    }
}

extension Resolution: Codable {
    public init(from decoder: any Decoder) throws {
        do {
            try self.init(wire: JSONValue(from: decoder))
        } catch let error as WireError {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    /// Encodes through `write(to:)`, the one definition of the wire form.
    public func encode(to encoder: any Encoder) throws {
        var out = JSONOutput()
        write(to: &out)
        try JSONValue(parsing: out.bytes).encode(to: encoder)
    }
}
