import Foundation

/// An amount of money: integer minor units of its currency (ISO 4217's minor unit: pence for
/// GBP, yen for JPY, fils for KWD), never floating point, so amounts add up exactly. On the
/// wire it is a string with exactly as many decimals as the currency's minor unit (`"3.50"`
/// GBP, `"500"` JPY, `"1.250"` KWD) next to an ISO 4217 `currency`.
public struct Money: Sendable, Hashable {
    /// Minor units of `currency`: hundredths of a pound, whole yen, thousandths of a dinar.
    public var minorUnits: Int64
    public var currency: String

    /// The most whole digits an amount has: under ten billion units of any currency.
    public static let maxWholeDigits = 10

    /// The largest amount accepted, in minor units of `currency`: just under ten billion
    /// units, whatever the currency's decimals. So at most 10^13 minor units (three decimals),
    /// which leaves a multiplication by a label's weight in grams (up to 10^5 on a 5-digit
    /// label) far from overflow; longer weights are multiplied with overflow reported.
    public static func maxMinorUnits(in currency: String) -> Int64 {
        powerOfTen(maxWholeDigits + decimals(of: currency)) - 1
    }

    public init(minorUnits: Int64, currency: String) {
        self.minorUnits = minorUnits
        self.currency = currency
    }

    /// How many decimals the amount has: its currency's ISO 4217 minor unit.
    public var decimals: Int { Self.decimals(of: currency) }

    /// A price printed on an in-store label: `digits` with `decimals` decimal places, or with
    /// `decimals` nil, minor units of `currency`. Nil when the label has more decimals than
    /// the currency (a layout the daemon refuses at start for its own currency) or the amount
    /// does not fit.
    public init?(label digits: Int64, decimals: Int?, currency: String) {
        let currencyDecimals = Self.decimals(of: currency)
        let shift = currencyDecimals - (decimals ?? currencyDecimals)
        guard shift >= 0, case (let minor, false) = digits.multipliedReportingOverflow(by: Self.powerOfTen(shift)) else {
            return nil
        }
        self.init(minorUnits: minor, currency: currency)
    }

    /// The price of `grams` at this price per kilogram, rounded half up to the currency's
    /// minor unit (an amount the till can take). Nil when it does not fit.
    public func forWeight(grams: Int64) -> Money? {
        guard case (let milli, false) = minorUnits.multipliedReportingOverflow(by: grams),
            case (let rounded, false) = milli.addingReportingOverflow(500)
        else { return nil }
        return Money(minorUnits: rounded / 1000, currency: currency)
    }

    /// `3.50` GBP, `500` JPY, `1.250` KWD, `-0.05` GBP.
    public var amount: String {
        Self.decimalText(minorUnits, decimals: decimals)
    }

    /// `minorUnits` written with `decimals` decimals: `350` with 2 is `3.50`, with 0 `350`.
    public static func decimalText(_ minorUnits: Int64, decimals: Int) -> String {
        let sign = minorUnits < 0 ? "-" : ""
        guard decimals > 0 else { return sign + String(minorUnits.magnitude) }
        let scale = UInt64(powerOfTen(decimals))
        let fraction = String(minorUnits.magnitude % scale)
        return "\(sign)\(minorUnits.magnitude / scale).\(String(repeating: "0", count: decimals - fraction.count))\(fraction)"
    }

    /// The decimals of `currency`. A code outside ISO 4217's list (a currency since replaced,
    /// a row typed by hand into the shop's database) is held in hundredths, as every amount
    /// was before amounts followed their currency: the migrations left such rows as they were.
    public static func decimals(of currency: String) -> Int {
        Currency.minorUnit(of: currency) ?? 2
    }

    /// Parses an input amount of `currency` into its minor units: a string (`"3.5"`,
    /// `"3.50"`) or a JSON number with at most the currency's decimals. A negative amount,
    /// more decimals than the currency has, or ten billion units or more is refused with
    /// `-32602` naming `field`, never rounded.
    public static func parseAmount(_ value: JSONValue, currency: String, field: String) throws(ScanBridgeError) -> Int64 {
        try parseAmount(try text(of: value, field: field), currency: currency, field: field)
    }

    public static func parseAmount(_ text: String, currency: String, field: String) throws(ScanBridgeError) -> Int64 {
        guard let decimals = Currency.minorUnit(of: currency) else {
            throw .invalidParams(
                "\(field) cannot be an amount of \(currency), which has no minor unit in ISO 4217", field: field)
        }
        let (whole, fraction) = try split(text, field: field)
        guard fraction.count <= decimals else {
            throw .invalidParams(
                "\(field) has \(fraction.count) decimal\(fraction.count == 1 ? "" : "s") (\(text)) but \(currency) has \(decimals)",
                field: field)
        }
        // Safe: `split` gives digits alone, at most 10 whole ones, and no currency has more
        // than 3 decimals, so each part and the sum fit.
        let padded = fraction + String(repeating: "0", count: decimals - fraction.count)
        let minor = Int64(whole)! * powerOfTen(decimals) + (padded.isEmpty ? 0 : Int64(padded)!)
        guard minor <= maxMinorUnits(in: currency) else {
            throw .invalidParams("\(field) is too large (\(text))", field: field)
        }
        return minor
    }

    /// Checks that `value` is an amount of some currency (its form, sign and size), for a
    /// caller that does not know which currency it is in: the one that does checks its
    /// decimals with `parseAmount`.
    public static func checkAmount(_ value: JSONValue, field: String) throws(ScanBridgeError) {
        _ = try split(try text(of: value, field: field), field: field)
    }

    /// The text of an input amount: a string as given, a JSON number as written.
    private static func text(of value: JSONValue, field: String) throws(ScanBridgeError) -> String {
        switch value {
        case .string(let string): return string.trimmingCharacters(in: [" "])
        case .int(let number): return String(number)
        // A whole number sent as 500.0 arrives as a double: it has no decimals to count.
        case .double(let number) where number.isFinite && number == number.rounded() && number.magnitude < 1e15:
            return String(Int64(number))
        // Otherwise its shortest form ("3.5") is what was sent, up to zeros after the last digit.
        case .double(let number) where number.isFinite: return "\(number)"
        default:
            throw .invalidParams("\(field) must be an amount such as \"3.50\", not \(value.typeName)", field: field)
        }
    }

    /// The whole and fraction digits of an amount's text, refused when it is not digits with
    /// an optional decimal point, is negative, or has more whole digits than any amount.
    private static func split(_ text: String, field: String) throws(ScanBridgeError) -> (Substring, Substring) {
        guard text.first != "-" else {
            throw .invalidParams("\(field) must not be negative; got \(text)", field: field)
        }
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard !text.isEmpty, let whole = parts.first, !whole.isEmpty,
            whole.allSatisfy({ $0.isASCII && $0.isNumber }),
            parts.count == 1 || parts[1].allSatisfy({ $0.isASCII && $0.isNumber })
        else {
            throw .invalidParams("\(field) must be an amount such as \"3.50\"; got '\(text)'", field: field)
        }
        guard whole.count <= maxWholeDigits else {
            throw .invalidParams("\(field) is too large (\(text))", field: field)
        }
        return (whole, parts.count == 2 ? parts[1] : "")
    }

    private static func powerOfTen(_ exponent: Int) -> Int64 {
        (0..<exponent).reduce(1) { result, _ in result * 10 }
    }
}
