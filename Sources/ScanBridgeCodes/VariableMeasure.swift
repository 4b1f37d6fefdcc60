/// A variable-measure EAN-13 from a scale label: a restricted-circulation number
/// (prefix 02 or 20–29) whose digits hold an item reference and a price or weight,
/// laid out as the region's GS1 Member Organisation decides (see ``Region``).
public struct VariableMeasure: Sendable, Hashable {
    public enum Value: Sendable, Hashable {
        /// A price as the label prints it: `digits` with `decimals` decimal places, or with
        /// `decimals` nil, in minor units of the store's currency (pence, cents, yen, fils),
        /// as most layouts print it. The label does not say its currency: the store's
        /// currency, which this module does not know, makes it an amount.
        case price(digits: Int64, decimals: Int?)
        case weight(grams: Int64)
    }

    /// The EAN-13 with the value digits zeroed and the price check digit and final check
    /// digit recomputed: the same for every label of one item, so the catalogue lookup key.
    public let itemCode: String
    public let value: Value

    public init(itemCode: String, value: Value) {
        self.itemCode = itemCode
        self.value = value
    }

    /// Reads `ean13` by `region`'s layouts. Nil when it is not a 13-digit code with a
    /// variable-measure prefix in that region; throws when it is one but its final check
    /// digit or price check digit is wrong.
    /// Inlined into the caller: see ``GTIN``.
    @inlinable
    public static func parse(_ ean13: some StringProtocol, region: Region) throws(CodeError) -> VariableMeasure? {
        try parse(text: String(ean13), region: region)
    }

    @usableFromInline
    static func parse(text ean13: String, region: Region) throws(CodeError) -> VariableMeasure? {
        guard ASCII.firstNonDigit(in: ean13) == nil, ean13.utf8.count == 13,
            let layout = region.layouts[String(ean13.prefix(2))]
        else { return nil }
        if let error = GTIN.checkDigitError(ean13) { throw error }
        var data = Array(ean13.prefix(12))
        let valueDigits = String(data[layout.valueRange])
        if let checkIndex = layout.checkIndex, let found = ASCII.digit(data[checkIndex]),
            let expected = PriceCheckDigit.forValue(valueDigits), found != expected
        {
            throw CodeError(
                "the price check digit is \(found) but should be \(expected) for the "
                    + "\(layout.measure == .price ? "price" : "weight") \(valueDigits) in \(ean13)")
        }
        data.replaceSubrange(layout.valueRange, with: repeatElement("0", count: layout.valueRange.count))
        if let checkIndex = layout.checkIndex, let zeroCheck = PriceCheckDigit.forValue(String(data[layout.valueRange])) {
            data[checkIndex] = Character(String(zeroCheck))
        }
        let key = String(data)
        // Safe: the value digits are ASCII digits, at most 10 of them, so they fit an Int64,
        // and `key` is 12 ASCII digits, so it has a check digit.
        let value = Int64(valueDigits) ?? 0
        return VariableMeasure(itemCode: key + String(GTIN.checkDigit(forData: key) ?? 0), value: layout.value(value))
    }
}
