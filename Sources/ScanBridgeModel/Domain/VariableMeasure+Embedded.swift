public import ScanBridgeCodes

extension VariableMeasure.Value {
    /// The value printed in an in-store barcode as the wire gives it, the `embedded` member
    /// of a `product-lookup` resolution and of a ScanEvent: a price as an amount of the
    /// store's `currency`, or a weight in kilograms, priced at `pricePerKg` when the product
    /// is known. Nil for a price the currency cannot hold (more decimals than it has).
    public func embedded(currency: String, pricePerKg: Money? = nil) -> JSONValue? {
        switch self {
        case .price(let digits, let decimals):
            guard let price = Money(label: digits, decimals: decimals, currency: currency) else { return nil }
            return .object(["price": .string(price.amount), "currency": .string(currency)])
        case .weight(let grams):
            var members: [String: JSONValue] = ["weightKg": .double(Double(grams) / 1000)]
            if let price = pricePerKg?.forWeight(grams: grams) {
                members["price"] = .string(price.amount)
                members["currency"] = .string(price.currency)
            }
            return .object(members)
        }
    }
}
