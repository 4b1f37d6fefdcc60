import Foundation
public import ScanBridgeModel
import ScanBridgeRPC

/// How `products export` writes the catalog, so that `products import` reads it back
/// unchanged: CSV with the import's own columns (a header row, then one product a row), or
/// JSON Lines (one product object a line, as `products.list` gives it).
public enum CatalogExport: String, Sendable, Hashable, CaseIterable {
    case csv, jsonl

    /// The columns, in the order the import documents them.
    public static var columns: [String] { ImportSchema.products.columns.map(\.name) }

    /// What comes before the first product: the CSV header row.
    public var header: String? {
        self == .csv ? Self.columns.map(Self.quoted).joined(separator: ",") + "\r\n" : nil
    }

    /// One product (its `products.list` object) as a CSV row or a JSON line, with its line break.
    public func line(_ product: JSONValue) -> String {
        switch self {
        case .jsonl:
            return String(decoding: JSONWriter.bytes(.value(product)), as: UTF8.self) + "\n"
        case .csv:
            return Self.columns.map { Self.quoted(Self.cell(product[$0])) }.joined(separator: ",") + "\r\n"
        }
    }

    /// A member as the import reads it back: text as it is (a formula's text after a `'`,
    /// `FormulaCells`), numbers and flags spelled out, nothing for null.
    public static func cell(_ value: JSONValue?) -> String {
        switch value {
        case .string(let text)?: FormulaCells.neutralized(text)
        case .int(let number)?: String(number)
        case .double(let number)?: String(number)
        case .bool(let flag)?: flag ? "true" : "false"
        case .null?, nil, .array?, .object?: ""
        }
    }

    /// A CSV field, in quotes when it holds a comma, quote or line break, or would lose spaces
    /// at its ends.
    static func quoted(_ text: String) -> String {
        let needsQuotes =
            text.utf8.contains { [0x2C, 0x22, 0x0A, 0x0D, 0x3B, 0x09].contains($0) }
            || text.first == " " || text.last == " "
        guard needsQuotes else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
