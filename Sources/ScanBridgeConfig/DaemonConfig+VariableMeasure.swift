package import ScanBridgeCodes

extension DaemonConfig.Catalog {
    /// The in-store price/weight barcode layouts the daemon reads: the built-in ones of
    /// `region` (GB when none is given), with `variable_measure.layouts` added, each replacing
    /// the built-in layout of its prefixes, or alone when `variable_measure.replace` is true.
    /// A region with no built-in layouts is accepted when the file gives layouts for it.
    ///
    /// Throws at load, naming the key and what to change: a layout whose lengths do not make
    /// an EAN-13, decimals out of range, a prefix outside the restricted-circulation range
    /// (it would misread a company's GTINs), or a prefix given twice.
    package func variableMeasureRegion() throws -> VariableMeasure.Region {
        let code = region ?? "GB"
        let layouts = try configuredLayouts()
        let replace = variableMeasure?.replace ?? false
        if let builtIn = VariableMeasure.Region.named(code) {
            return builtIn.with(layouts, replacing: replace)
        }
        let known = VariableMeasure.Region.all.map(\.code).joined(separator: ", ")
        guard !layouts.isEmpty else {
            throw DaemonConfig.LoadError(
                description:
                    "catalog.region '\(code)' has no in-store barcode layout here; use one of \(known), "
                    + "or give its layouts in catalog.variable_measure.layouts")
        }
        guard code.utf8.count == 2, code.utf8.allSatisfy({ (0x41...0x5A).contains($0 & 0xDF) }) else {
            throw DaemonConfig.LoadError(
                description: "catalog.region '\(code)' is not a country code; give two letters (ISO 3166-1), such as FR")
        }
        return VariableMeasure.Region(code: code.uppercased(), layouts: layouts)
    }

    private func configuredLayouts() throws -> [String: VariableMeasure.Layout] {
        var layouts: [String: VariableMeasure.Layout] = [:]
        var placeOf: [String: Int] = [:]
        for (index, entry) in (variableMeasure?.layouts ?? []).enumerated() {
            let key = "catalog.variable_measure.layouts[\(index)]"
            let layout = try entry.layout(at: key)
            guard let prefixes = entry.prefixes, !prefixes.isEmpty else {
                throw DaemonConfig.LoadError(
                    description: "\(key).prefixes is missing: list the two-digit prefixes it reads, such as [\"21\", \"22\"]")
            }
            for prefix in prefixes {
                guard VariableMeasure.Region.restrictedPrefixes.contains(prefix) else {
                    throw DaemonConfig.LoadError(
                        description:
                            "\(key).prefixes: '\(prefix)' is not a restricted-circulation prefix; use 02 (a UPC-A of "
                            + "number system 2) or 20 to 29, quoted in YAML (\"02\")")
                }
                if let earlier = placeOf[prefix] {
                    throw DaemonConfig.LoadError(
                        description:
                            "prefix \(prefix) is in catalog.variable_measure.layouts[\(earlier)] and [\(index)]; "
                            + "give each prefix one layout")
                }
                placeOf[prefix] = index
                layouts[prefix] = layout
            }
        }
        return layouts
    }
}

extension DaemonConfig.VariableMeasureLayout {
    fileprivate func layout(at key: String) throws -> VariableMeasure.Layout {
        let measure: VariableMeasure.Layout.Measure
        let valueDigits: Int
        switch (priceDigits, weightDigits) {
        case (let digits?, nil):
            (measure, valueDigits) = (.price, digits)
        case (nil, let digits?):
            (measure, valueDigits) = (.weight, digits)
        default:
            throw DaemonConfig.LoadError(
                description: "\(key) needs exactly one of price_digits and weight_digits: what the value measures")
        }
        guard let itemDigits else {
            throw DaemonConfig.LoadError(
                description: "\(key).item_digits is missing: the item reference's digits after the prefix")
        }
        // A price without decimals is in the minor unit of the catalog's currency.
        if measure == .weight && decimals == nil {
            throw DaemonConfig.LoadError(
                description: "\(key).decimals is missing: the weight's decimal places (3 for grams)")
        }
        do {
            return try VariableMeasure.Layout(
                itemDigits: itemDigits, priceCheckDigit: priceCheckDigit ?? false, valueDigits: valueDigits,
                measure: measure, decimals: decimals)
        } catch {
            throw DaemonConfig.LoadError(description: "\(key): \(error.message)")
        }
    }
}
