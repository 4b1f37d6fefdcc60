extension VariableMeasure {
    /// Where the item reference, price check digit and value sit in the first 12 digits
    /// of a variable-measure EAN-13, and what the value measures.
    public struct Layout: Sendable, Hashable {
        public enum Measure: Sendable, Hashable {
            case price
            case weight
        }

        /// Twelve characters: `P` item reference (the two prefix digits included), an
        /// optional `C` price check digit, then `V` value digits, e.g. `PPPPPPPCVVVV`.
        public let pattern: String
        public let measure: Measure
        /// Decimal places of the value: of the currency for a price (0–2), of kilograms
        /// for a weight (0–3).
        public let decimals: Int
        let valueRange: Range<Int>
        let checkIndex: Int?

        /// A layout; a malformed pattern or decimals out of range is a programming error.
        public init(_ pattern: String, _ measure: Measure, decimals: Int) {
            let chars = Array(pattern)
            let items = chars.prefix { $0 == "P" }.count
            let checks = chars.dropFirst(items).prefix { $0 == "C" }.count
            let values = chars.count - items - checks
            precondition(
                chars.count == 12 && items >= 2 && checks <= 1 && (1...10).contains(values)
                    && chars.suffix(values).allSatisfy { $0 == "V" } && (checks == 0 || [4, 5].contains(values)),
                "variable-measure layout '\(pattern)' is not P…[C]V… over 12 digits")
            precondition((0...(measure == .price ? 2 : 3)).contains(decimals), "variable-measure decimals out of range")
            self.pattern = pattern
            self.measure = measure
            self.decimals = decimals
            self.valueRange = (12 - values)..<12
            self.checkIndex = checks == 1 ? items : nil
        }

        /// The value digits read as hundredths of the currency or as grams.
        func value(_ digits: Int64) -> Value {
            switch measure {
            case .price: .price(minorUnits: digits * Self.powerOfTen(2 - decimals))
            case .weight: .weight(grams: digits * Self.powerOfTen(3 - decimals))
            }
        }

        private static func powerOfTen(_ exponent: Int) -> Int64 {
            (0..<exponent).reduce(1) { result, _ in result * 10 }
        }
    }
}
