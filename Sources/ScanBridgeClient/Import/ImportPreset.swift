/// A shop's product export read as it comes (`--preset`): which of its columns fill which
/// product field, and how its rows become products. Every other column of the export is
/// left out.
public enum ImportPreset: String, Sendable, Hashable, CaseIterable {
    /// Shopify's product CSV (Products → Export): one row per variant, grouped by Handle.
    case shopify
    /// WooCommerce's product CSV exporter: simple products, variable products and their variations.
    case woocommerce

    /// A fresh reader of the export's rows.
    func makeRows() -> any PresetRows {
        switch self {
        case .shopify: ShopifyRows()
        case .woocommerce: WooCommerceRows()
        }
    }
}

/// Turns an export's rows into product rows, one at a time, keeping what a later row of the
/// same product needs (and nothing more, so memory stays bounded).
protocol PresetRows: Sendable {
    /// Reads the header; throws when a column the export always has is missing (the wrong
    /// preset, or not an export).
    mutating func header(_ columns: ExportColumns, line: Int) throws(ImportProblem)

    /// The product a row makes, as cells by product field; nil for a row that is no product
    /// of its own (an extra image, a variable product's parent row).
    mutating func product(_ fields: [String], line: Int) -> [String: String]?
}

/// An export's header: where each named column is, found by any of its names.
struct ExportColumns: Sendable {
    private let positions: [String: Int]

    init(_ names: [String]) {
        var positions: [String: Int] = [:]
        for (index, name) in names.enumerated() {
            let key = trimmingSpaces(name).lowercased()
            if positions[key] == nil { positions[key] = index }
        }
        self.positions = positions
    }

    /// The position of the first of `names` the header has.
    func position(_ names: [String]) -> Int? {
        names.lazy.compactMap { positions[$0.lowercased()] }.first
    }

    /// The position of one of `names`, which the export must have.
    func required(_ names: [String], preset: ImportPreset, line: Int) throws(ImportProblem) -> Int {
        guard let position = position(names) else {
            throw ImportProblem(
                line: line,
                "this is not a \(preset.rawValue) product export: it has no '\(names[0])' column; "
                    + "give the preset that made the file, or --map its columns")
        }
        return position
    }
}

/// A cell by position, with its padding trimmed; empty when the column is absent.
func cell(_ fields: [String], _ position: Int?) -> String {
    guard let position, fields.indices.contains(position) else { return "" }
    return String(trimmingSpaces(fields[position]))
}
