public import ScanBridgeCodes

extension VariableMeasure.Value {
    /// The value printed in an in-store barcode as the wire gives it, the `embedded` member
    /// of a `product-lookup` resolution and of a ScanEvent: a price as an amount of
    /// `currency`, or a weight in kilograms, priced at `pricePerKg` when the product is known.
    public func embedded(currency: String, pricePerKg: Money? = nil) -> JSONValue {
        switch self {
        case .price(let minorUnits):
            return .object([
                "price": .string(Money(minorUnits: minorUnits, currency: currency).amount), "currency": .string(currency),
            ])
        case .weight(let grams):
            var members: [String: JSONValue] = ["weightKg": .double(Double(grams) / 1000)]
            // Price per kg × weight, rounded half up to the penny.
            if let pricePerKg, case (let total, let overflow) = pricePerKg.minorUnits.multipliedReportingOverflow(by: grams),
                !overflow
            {
                members["price"] = .string(
                    Money(minorUnits: total / 1000 + (total % 1000 >= 500 ? 1 : 0), currency: pricePerKg.currency).amount)
                members["currency"] = .string(pricePerKg.currency)
            }
            return .object(members)
        }
    }
}
