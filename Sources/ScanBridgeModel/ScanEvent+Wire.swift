import ScanBridgeCodes

extension ScanEvent {
    /// Reads an event from its parsed wire form (docs/protocol.md "ScanEvent"); the one definition
    /// of how an event is read, which `Decodable` also uses.
    ///
    /// Clients call it on the `JSONValue` they already parsed: going through `Decodable` would
    /// write the value back to JSON text and decode it again, several times slower, and a
    /// subscriber may receive tens of thousands per second.
    public init(wire value: JSONValue) throws(WireError) {
        guard case .object(let members) = value else { throw WireError("the event is \(value.typeName), not an object") }
        func required(_ key: String) throws(WireError) -> String {
            guard let text = members[key]?.stringValue else { throw WireError("\"\(key)\" is missing or not a string") }
            return text
        }
        func optional(_ key: String) throws(WireError) -> String? {
            switch members[key] {
            case nil, .null?: return nil
            case .string(let text)?: return text
            case .some(let other): throw WireError("\"\(key)\" is \(other.typeName), not a string")
            }
        }
        guard let seq = members["seq"]?.intValue, seq >= 0 else {
            throw WireError("\"seq\" is missing or not a whole number")
        }
        let timeText = try required("time")
        guard let time = EventTime.parse(timeText) else { throw WireError("\"time\" is not an RFC 3339 time: \(timeText)") }
        let kindText = try required("kind")
        guard let kind = DeviceKind(rawValue: kindText) else {
            throw WireError("\"kind\" is not nfc, barcode or qr: \(kindText)")
        }
        self.init(
            seq: UInt64(seq), id: try required("id"), time: time, device: try required("device"),
            driver: try required("driver"), kind: kind, symbology: try required("symbology"), aim: try optional("aim"),
            text: try required("text"), raw: try optional("raw"), uid: try optional("uid"),
            uidDisplay: try optional("uidDisplay"), atr: try optional("atr"), cardType: try optional("cardType"),
            ndef: try Self.ndef(members["ndef"]), gs1: try Self.gs1(members["gs1"]), gtin: try optional("gtin"),
            embedded: try Self.embedded(members["embedded"]), sun: try SUNReading(wire: members["sun"]),
            resolution: try Resolution(wire: members["resolution"]))
    }

    private static func ndef(_ value: JSONValue?) throws(WireError) -> [NDEFRecord]? {
        switch value {
        case nil, .null?: return nil
        case .array(let records)?:
            var result: [NDEFRecord] = []
            for record in records {
                guard let type = record["type"]?.stringValue, let text = record["value"]?.stringValue else {
                    throw WireError("an \"ndef\" record needs string \"type\" and \"value\"")
                }
                result.append(NDEFRecord(type: type, value: text))
            }
            return result
        case .some(let other): throw WireError("\"ndef\" is \(other.typeName), not an array")
        }
    }

    private static func gs1(_ value: JSONValue?) throws(WireError) -> [String: String]? {
        switch value {
        case nil, .null?: return nil
        case .object(let members)?:
            var result: [String: String] = [:]
            for (key, member) in members {
                guard let text = member.stringValue else { throw WireError("\"gs1\" values must be strings") }
                result[key] = text
            }
            return result
        case .some(let other): throw WireError("\"gs1\" is \(other.typeName), not an object")
        }
    }

    private static func embedded(_ value: JSONValue?) throws(WireError) -> JSONValue? {
        switch value {
        case nil, .null?: return nil
        case .object?: return value
        case .some(let other): throw WireError("\"embedded\" is \(other.typeName), not an object")
        }
    }

}

/// Why a JSON value is not a valid event.
public struct WireError: Error, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

extension Resolution {
    /// Absent or null is `unhandled`; a missing status is `unknown`; other members are details.
    public init(wire value: JSONValue?) throws(WireError) {
        switch value {
        case nil, .null?:
            self = .unhandled
        case .object(var members)?:
            let handler = members.removeValue(forKey: "handler")?.stringValue
            let status = members.removeValue(forKey: "status")?.stringValue ?? "unknown"
            self.init(handler: handler, status: status, details: members)
        case .some(let other):
            throw WireError("\"resolution\" is \(other.typeName), not an object")
        }
    }
}
