import ScanBridgeCore

/// Typed access to a request's named parameters. Every failure is an `invalidParams`
/// error naming the field, so a client learns exactly what to fix.
public struct Params: Sendable {
    public let members: [String: JSONValue]

    public init(_ value: JSONValue?) throws(ScanBridgeError) {
        switch value {
        case nil, .null?: members = [:]
        case .object(let members)?: self.members = members
        case .some(let other):
            throw .invalidParams("params must be an object of named parameters, not \(other.typeName)", field: "params")
        }
    }

    public func has(_ key: String) -> Bool {
        if let value = members[key], value != .null { return true }
        return false
    }

    public func string(_ key: String) throws(ScanBridgeError) -> String? {
        switch members[key] {
        case nil, .null?: return nil
        case .string(let text)?: return text
        case .some(let other): throw .invalidParams("\(key) must be a string, not \(other.typeName)", field: key)
        }
    }

    public func requiredString(_ key: String) throws(ScanBridgeError) -> String {
        guard let text = try string(key) else { throw .invalidParams("\(key) is required", field: key) }
        return text
    }

    public func integer(_ key: String, in range: ClosedRange<Int64>) throws(ScanBridgeError) -> Int64? {
        switch members[key] {
        case nil, .null?: return nil
        case .some(let value):
            guard let number = value.intValue else {
                throw .invalidParams("\(key) must be a whole number, not \(value.typeName)", field: key)
            }
            guard range.contains(number) else {
                throw .invalidParams("\(key) must be between \(range.lowerBound) and \(range.upperBound)", field: key)
            }
            return number
        }
    }

    public func strings(_ key: String) throws(ScanBridgeError) -> [String]? {
        switch members[key] {
        case nil, .null?: return nil
        case .array(let elements)?:
            var texts: [String] = []
            for element in elements {
                guard case .string(let text) = element else {
                    throw .invalidParams("\(key) must be an array of strings", field: key)
                }
                texts.append(text)
            }
            return texts
        case .some(let other): throw .invalidParams("\(key) must be an array of strings, not \(other.typeName)", field: key)
        }
    }

    /// A device kind (`nfc`, `barcode`, `qr`).
    public func kind(_ key: String) throws(ScanBridgeError) -> DeviceKind? {
        guard let text = try string(key) else { return nil }
        guard let kind = DeviceKind(rawValue: text) else {
            throw .invalidParams("\(key) must be one of nfc, barcode, qr; got '\(text)'", field: key)
        }
        return kind
    }

    public func kinds(_ key: String) throws(ScanBridgeError) -> Set<DeviceKind>? {
        guard let texts = try strings(key) else { return nil }
        var kinds = Set<DeviceKind>()
        for text in texts {
            guard let kind = DeviceKind(rawValue: text) else {
                throw .invalidParams("\(key) may hold nfc, barcode, qr; got '\(text)'", field: key)
            }
            kinds.insert(kind)
        }
        return kinds
    }
}
