import Foundation

/// Which field each of a file's own columns fills: `Variant Barcode=barcode`. A mapped
/// column takes the field's place in the header; a column mapped to nothing (`Notes=`) is
/// left out.
///
/// Written as `--map` takes it: pairs separated by commas, each `Source column=field`,
/// split at the last `=` (a field name never holds one). A comma or backslash inside a
/// column name is written with a backslash before it: `Price\, incl. VAT=price`. In a map
/// file (`--map-file`) each line is one pair, so nothing needs escaping there; blank lines
/// and lines starting with `#` are skipped.
public struct ColumnMapping: Sendable, Hashable {
    public struct Pair: Sendable, Hashable {
        /// The file's column, matched without regard to case or surrounding spaces.
        public var source: String
        /// The field it fills; empty to leave the column out.
        public var field: String
    }

    public private(set) var pairs: [Pair] = []

    public init() {}

    public var isEmpty: Bool { pairs.isEmpty }

    /// Adds the pairs of one `--map` value.
    ///
    /// - Throws: `ImportProblem` naming the pair that has no `=` or no column name, or a
    ///   column mapped twice.
    public mutating func add(argument: String) throws(ImportProblem) {
        for pair in Self.split(argument) where !pair.allSatisfy(\.isWhitespace) {
            try add(pair, line: nil)
        }
    }

    /// Adds the pairs of a map file's text.
    public mutating func add(fileText text: String) throws(ImportProblem) {
        for (offset, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let content = line.hasSuffix("\r") ? line.dropLast() : line
            let trimmed = trimmingSpaces(String(content))
            guard !trimmed.isEmpty, !trimmed.hasPrefix("#") else { continue }
            try add(String(content), line: offset + 1)
        }
    }

    /// Checks every field against `schema`'s columns, before anything is read or sent.
    ///
    /// - Throws: `ImportProblem` naming the field that does not exist and the ones that do.
    public func validate(against schema: ImportSchema) throws(ImportProblem) {
        for pair in pairs where !pair.field.isEmpty && schema.column(named: pair.field) == nil {
            throw ImportProblem(
                line: nil,
                "--map: '\(pair.source)' is mapped to '\(pair.field)', which is no field; the fields are "
                    + schema.columns.map(\.name).joined(separator: ", "))
        }
    }

    /// The field `column` is mapped to ("" to leave it out); nil when it is not mapped.
    public func field(for column: String) -> String? {
        let name = trimmingSpaces(column)
        return pairs.first { $0.source.caseInsensitiveCompare(name) == .orderedSame }?.field
    }

    private mutating func add(_ text: String, line: Int?) throws(ImportProblem) {
        let place = line.map { "line \($0) of the map file" } ?? "--map"
        guard let equals = text.lastIndex(of: "=") else {
            throw ImportProblem(line: nil, "\(place): '\(text)' is not 'Source column=field'")
        }
        let source = String(trimmingSpaces(String(text[..<equals])))
        let field = String(trimmingSpaces(String(text[text.index(after: equals)...])))
        guard !source.isEmpty else {
            throw ImportProblem(line: nil, "\(place): '\(text)' names no column before the =")
        }
        guard self.field(for: source) == nil else {
            throw ImportProblem(line: nil, "\(place): the column '\(source)' is mapped twice")
        }
        pairs.append(Pair(source: source, field: field))
    }

    /// One `--map` value's pairs: split at commas, where `\,` is a comma and `\\` a backslash.
    static func split(_ argument: String) -> [String] {
        var pairs: [String] = []
        var current = ""
        var escaped = false
        for character in argument {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "," {
                pairs.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        if escaped { current.append("\\") }
        pairs.append(current)
        return pairs
    }
}
