extension VariableMeasure {
    /// Where the item reference, price check digit and value sit in the first 12 digits
    /// of a variable-measure EAN-13, and what the value measures.
    public struct Layout: Sendable, Hashable {
        public enum Measure: String, Sendable, Hashable {
            case price
            case weight
        }

        /// Twelve characters: `P` item reference (the two prefix digits included), an
        /// optional `C` price check digit, then `V` value digits, e.g. `PPPPPPPCVVVV`.
        public let pattern: String
        public let measure: Measure
        /// Decimal places of the value: of kilograms for a weight (0–3); of the currency's
        /// unit for a price (0–3), nil for a price in the minor unit of whatever currency the
        /// store has (``Value/price(digits:decimals:)``).
        public let decimals: Int?
        let valueRange: Range<Int>
        let checkIndex: Int?

        /// A built-in layout from its pattern; a malformed one is a programming error.
        /// `decimals` nil: a price in the store's currency's minor unit.
        public init(_ pattern: String, _ measure: Measure, decimals: Int? = nil) {
            let chars = Array(pattern)
            let items = chars.prefix { $0 == "P" }.count
            let checks = chars.dropFirst(items).prefix { $0 == "C" }.count
            let values = chars.count - items - checks
            precondition(
                chars.count == 12 && checks <= 1 && chars.suffix(values).allSatisfy { $0 == "V" },
                "variable-measure layout '\(pattern)' is not P…[C]V… over 12 digits")
            do {
                try self.init(
                    itemDigits: items - 2, priceCheckDigit: checks == 1, valueDigits: values, measure: measure,
                    decimals: decimals)
            } catch {
                preconditionFailure("variable-measure layout '\(pattern)': \(error.message)")
            }
        }

        /// A layout from its parts, as a configuration gives them: after the two prefix digits,
        /// `itemDigits` of item reference, a price check digit or not, and `valueDigits` of
        /// value. Throws, saying what to change, unless they fill the 12 digits an EAN-13 has
        /// before its check digit (a UPC-A is read as an EAN-13 with a leading 0, prefix 02),
        /// and the value and its decimals fit what ``Value`` holds. A weight needs its
        /// decimals; a price without them is in the minor unit of the store's currency.
        public init(
            itemDigits: Int, priceCheckDigit: Bool, valueDigits: Int, measure: Measure, decimals: Int?
        ) throws(CodeError) {
            // Each part is bounded before they are added, so a configured number cannot overflow.
            if !(1...9).contains(itemDigits) {
                throw CodeError("the item reference has 1 to 9 digits after the prefix; it has \(itemDigits)")
            }
            if !(1...10).contains(valueDigits) {
                throw CodeError("a \(measure.rawValue) has 1 to 10 digits; it has \(valueDigits)")
            }
            let checks = priceCheckDigit ? 1 : 0
            let total = 2 + itemDigits + checks + valueDigits
            let maxDecimals = Self.maxDecimals(measure)
            if total != 12 {
                throw CodeError(
                    "2 prefix digits + \(itemDigits) item digits + \(checks) price check digit + \(valueDigits) "
                        + "\(measure.rawValue) digits make \(total); they must make 12, the digits of an EAN-13 "
                        + "before its check digit (a UPC-A counts as an EAN-13 with a leading 0)")
            }
            if priceCheckDigit && ![4, 5].contains(valueDigits) {
                throw CodeError(
                    "a price check digit is defined over 4 or 5 digits (GS1 §7.9); this \(measure.rawValue) has "
                        + "\(valueDigits): drop the price check digit or give 4 or 5 digits")
            }
            if measure == .weight && decimals == nil {
                throw CodeError("a weight needs its decimals: 3 for grams, 0 for whole kilograms")
            }
            if let decimals, !(0...maxDecimals).contains(decimals) {
                throw CodeError(
                    "a \(measure.rawValue) has 0 to \(maxDecimals) decimals "
                        + "(\(measure == .price ? "no currency has more than 3" : "weights are held in grams")); "
                        + "this has \(decimals)")
            }
            self.pattern =
                String(repeating: "P", count: 2 + itemDigits) + (priceCheckDigit ? "C" : "")
                + String(repeating: "V", count: valueDigits)
            self.measure = measure
            self.decimals = decimals
            self.valueRange = (12 - valueDigits)..<12
            self.checkIndex = priceCheckDigit ? 2 + itemDigits : nil
        }

        /// Item digits after the two prefix digits.
        public var itemDigits: Int { (checkIndex ?? valueRange.lowerBound) - 2 }
        public var valueDigits: Int { valueRange.count }
        public var hasPriceCheckDigit: Bool { checkIndex != nil }

        /// The most decimals a value of `measure` may have: a price those of the currency
        /// with the most (ISO 4217's minor units go to 3), a weight in grams.
        public static func maxDecimals(_ measure: Measure) -> Int {
            3
        }

        /// The value digits read as a price as printed, or as grams.
        func value(_ digits: Int64) -> Value {
            switch measure {
            case .price: .price(digits: digits, decimals: decimals)
            // Safe: the initialiser refuses a weight without decimals.
            case .weight: .weight(grams: digits * Self.powerOfTen(3 - (decimals ?? 3)))
            }
        }

        private static func powerOfTen(_ exponent: Int) -> Int64 {
            (0..<exponent).reduce(1) { result, _ in result * 10 }
        }
    }
}
