import Foundation

/// An amount of money: integer hundredths of a currency unit, never floating point, so
/// amounts add up exactly. On the wire it is a string with exactly two decimals
/// (`"3.50"`) next to an ISO 4217 `currency`.
public struct Money: Sendable, Hashable {
    /// Hundredths of the currency's unit (pence for GBP).
    public var minorUnits: Int64
    public var currency: String

    /// The largest amount accepted: ten billion units, far from overflow when multiplied.
    public static let maxMinorUnits: Int64 = 1_000_000_000_000

    public init(minorUnits: Int64, currency: String) {
        self.minorUnits = minorUnits
        self.currency = currency
    }

    /// `3.50`, `-0.05`.
    public var amount: String {
        let magnitude = minorUnits.magnitude
        let cents = magnitude % 100
        return "\(minorUnits < 0 ? "-" : "")\(magnitude / 100).\(cents < 10 ? "0" : "")\(cents)"
    }

    /// Parses an input amount: a string (`"3.5"`, `"3.50"`) or a JSON number with at most
    /// two decimals. Negative amounts and sub-penny precision are refused, not rounded.
    public static func parseAmount(_ value: JSONValue, field: String) throws(ScanBridgeError) -> Int64 {
        let text: String
        switch value {
        case .string(let string): text = string.trimmingCharacters(in: [" "])
        case .int(let number): text = String(number)
        // A JSON number such as 3.5 arrives as a double; its shortest form ("3.5") is what was sent.
        case .double(let number) where number.isFinite: text = "\(number)"
        default:
            throw .invalidParams("\(field) must be an amount such as \"3.50\", not \(value.typeName)", field: field)
        }
        return try parseAmount(text, field: field)
    }

    public static func parseAmount(_ text: String, field: String) throws(ScanBridgeError) -> Int64 {
        let digits = text.utf8
        guard text.first != "-" else {
            throw .invalidParams("\(field) must not be negative; got \(text)", field: field)
        }
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard !digits.isEmpty, let whole = parts.first, !whole.isEmpty, whole.count <= 10,
            whole.allSatisfy({ $0.isASCII && $0.isNumber }),
            parts.count == 1 || parts[1].allSatisfy({ $0.isASCII && $0.isNumber })
        else {
            throw .invalidParams("\(field) must be an amount such as \"3.50\"; got '\(text)'", field: field)
        }
        let fraction = parts.count == 2 ? parts[1] : ""
        guard fraction.count <= 2 else {
            throw .invalidParams(
                "\(field) has more than two decimals (\(text)); amounts are in whole hundredths, e.g. 3.50", field: field)
        }
        let cents = Int64(fraction.padding(toLength: 2, withPad: "0", startingAt: 0))!
        let units = Int64(whole)! * 100 + cents
        guard units <= maxMinorUnits else {
            throw .invalidParams("\(field) is too large (\(text))", field: field)
        }
        return units
    }
}
