public import Foundation

/// Typed access to the members of a JSON object: request parameters, and the objects
/// inside them (a product to upsert, a CSV row turned into an object). Every failure is
/// an `invalidParams` error naming the field by its path (`products[3].price`), so a
/// client learns exactly what to fix.
public struct JSONFields: Sendable {
    public let members: [String: JSONValue]
    /// The path of this object inside the request (`product`, `products[3]`), empty at the top.
    public let path: String

    public init(_ value: JSONValue?, path: String = "") throws(ScanBridgeError) {
        self.path = path
        switch value {
        case nil, .null?: members = [:]
        case .object(let members)?: self.members = members
        case .some(let other):
            let what = path.isEmpty ? "params" : path
            throw .invalidParams("\(what) must be an object of named fields, not \(other.typeName)", field: what)
        }
    }

    /// The full name of a member, as errors report it.
    public func field(_ key: String) -> String {
        path.isEmpty ? key : "\(path).\(key)"
    }

    public func has(_ key: String) -> Bool {
        if let value = members[key], value != .null { return true }
        return false
    }

    public func string(_ key: String) throws(ScanBridgeError) -> String? {
        switch members[key] {
        case nil, .null?: return nil
        case .string(let text)?: return text
        case .some(let other): throw .invalidParams("\(field(key)) must be a string, not \(other.typeName)", field: field(key))
        }
    }

    public func requiredString(_ key: String) throws(ScanBridgeError) -> String {
        guard let text = try string(key) else { throw .invalidParams("\(field(key)) is required", field: field(key)) }
        return text
    }

    /// A string that must hold something other than spaces; trimmed.
    public func requiredText(_ key: String, maxLength: Int = 256) throws(ScanBridgeError) -> String {
        guard let text = try text(key, maxLength: maxLength) else {
            throw .invalidParams("\(field(key)) is required", field: field(key))
        }
        return text
    }

    /// An optional string, trimmed; empty counts as absent. Control characters are refused.
    public func text(_ key: String, maxLength: Int = 256) throws(ScanBridgeError) -> String? {
        guard let raw = try string(key) else { return nil }
        let text = Self.trimmed(raw)
        guard !text.isEmpty else { return nil }
        // In bytes as well: a character may carry any number of combining marks.
        guard text.utf8.count <= Self.maxBytes(ofCharacters: maxLength), text.count <= maxLength else {
            throw .invalidParams(
                "\(field(key)) may have at most \(maxLength) characters (\(Self.maxBytes(ofCharacters: maxLength)) bytes)",
                field: field(key))
        }
        // Control characters are C0 (bytes below 0x20), DEL and C1 (U+0080–U+009F, lead byte 0xC2):
        // look at the scalars only when such a byte is there.
        let suspicious = text.utf8.contains { $0 < 0x20 || $0 == 0x7F || $0 == 0xC2 }
        guard !suspicious || !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw .invalidParams("\(field(key)) must not contain control characters", field: field(key))
        }
        return text
    }

    /// The most UTF-8 bytes a text of `characters` characters may take: four each, the
    /// longest a scalar takes, so any text of that many scalars fits.
    public static func maxBytes(ofCharacters characters: Int) -> Int { characters * 4 }

    /// Without leading and trailing spaces and tabs; the untouched string when it has none,
    /// which is nearly always (an import checks millions of fields).
    static func trimmed(_ text: String) -> String {
        let utf8 = text.utf8
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
        guard let first = utf8.first, let last = utf8.last, isSpace(first) || isSpace(last) else { return text }
        let start = utf8.firstIndex { !isSpace($0) } ?? utf8.endIndex
        guard start != utf8.endIndex else { return "" }
        let end = utf8.lastIndex { !isSpace($0) }!
        return String(text[start...end])
    }

    public func integer(_ key: String, in range: ClosedRange<Int64>) throws(ScanBridgeError) -> Int64? {
        switch members[key] {
        case nil, .null?: return nil
        case .some(let value):
            guard let number = value.intValue else {
                throw .invalidParams("\(field(key)) must be a whole number, not \(value.typeName)", field: field(key))
            }
            guard range.contains(number) else {
                throw .invalidParams(
                    "\(field(key)) must be between \(range.lowerBound) and \(range.upperBound)", field: field(key))
            }
            return number
        }
    }

    public func bool(_ key: String) throws(ScanBridgeError) -> Bool? {
        switch members[key] {
        case nil, .null?: return nil
        case .bool(let flag)?: return flag
        case .some(let other):
            throw .invalidParams("\(field(key)) must be true or false, not \(other.typeName)", field: field(key))
        }
    }

    /// An RFC 3339 time (`2026-11-21T09:40:00.123Z`).
    public func time(_ key: String) throws(ScanBridgeError) -> Date? {
        guard let text = try string(key) else { return nil }
        guard let date = EventTime.parse(text) else {
            throw .invalidParams(
                "\(field(key)) must be an RFC 3339 time such as 2026-11-21T09:40:00.123Z, not '\(text)'", field: field(key))
        }
        return date
    }

    /// A nested object, with field names reported under this one.
    public func object(_ key: String) throws(ScanBridgeError) -> JSONFields? {
        guard has(key) else { return nil }
        return try JSONFields(members[key], path: field(key))
    }

    /// An array of objects, each with its index in field names (`products[3].price`).
    public func objects(_ key: String) throws(ScanBridgeError) -> [JSONFields]? {
        switch members[key] {
        case nil, .null?: return nil
        case .array(let elements)?:
            var objects: [JSONFields] = []
            objects.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                objects.append(try JSONFields(element, path: "\(field(key))[\(index)]"))
            }
            return objects
        case .some(let other):
            throw .invalidParams("\(field(key)) must be an array of objects, not \(other.typeName)", field: field(key))
        }
    }

    public func strings(_ key: String) throws(ScanBridgeError) -> [String]? {
        switch members[key] {
        case nil, .null?: return nil
        case .array(let elements)?:
            var texts: [String] = []
            for element in elements {
                guard case .string(let text) = element else {
                    throw .invalidParams("\(field(key)) must be an array of strings", field: field(key))
                }
                texts.append(text)
            }
            return texts
        case .some(let other):
            throw .invalidParams("\(field(key)) must be an array of strings, not \(other.typeName)", field: field(key))
        }
    }

    /// A device kind (`nfc`, `barcode`, `qr`).
    public func kind(_ key: String) throws(ScanBridgeError) -> DeviceKind? {
        guard let text = try string(key) else { return nil }
        guard let kind = DeviceKind(rawValue: text) else {
            throw .invalidParams("\(field(key)) must be one of nfc, barcode, qr; got '\(text)'", field: field(key))
        }
        return kind
    }

    public func kinds(_ key: String) throws(ScanBridgeError) -> Set<DeviceKind>? {
        guard let texts = try strings(key) else { return nil }
        var kinds = Set<DeviceKind>()
        for text in texts {
            guard let kind = DeviceKind(rawValue: text) else {
                throw .invalidParams("\(field(key)) may hold nfc, barcode, qr; got '\(text)'", field: field(key))
            }
            kinds.insert(kind)
        }
        return kinds
    }
}
