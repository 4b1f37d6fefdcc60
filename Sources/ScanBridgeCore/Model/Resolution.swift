/// What the domain handler that took an event answered (PROTOCOL.md "Resolutions").
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
    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: any Decoder) throws {
        var members = try JSONValue(from: decoder).objectValue ?? [:]
        handler = members.removeValue(forKey: "handler")?.stringValue
        status = members.removeValue(forKey: "status")?.stringValue ?? "unknown"
        details = members
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(handler, forKey: Key("handler"))
        try container.encode(status, forKey: Key("status"))
        for key in details.keys.sorted() where key != "handler" && key != "status" {
            try container.encode(details[key], forKey: Key(key))
        }
    }
}
