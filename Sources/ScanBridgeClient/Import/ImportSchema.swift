import Foundation
public import ScanBridgeModel

/// The CSV columns an import knows, the JSON type each becomes, and how rows form records:
/// a row is one product; consecutive rows with the same order `id` are one order, each row
/// adding a device.
public struct ImportSchema: Sendable, Hashable {
    /// The JSON type a cell becomes. An empty cell is always left out.
    public enum FieldType: Sendable, Hashable {
        /// The cell as it is (a price stays a string: no rounding through a double).
        case string
        /// A whole number: `42`, `-3`.
        case integer
        /// `true`/`false`, `yes`/`no`, `1`/`0`, in any case.
        case boolean
    }

    public struct Column: Sendable, Hashable {
        /// The header, matched without regard to case.
        public var name: String
        public var type: FieldType
        /// The member the cell fills: in the record, or with `isChild` in the row's child object.
        public var key: String
        public var isChild: Bool
        /// The header must have this column.
        public var isRequired: Bool

        public init(_ name: String, _ type: FieldType = .string, key: String? = nil, child: Bool = false, required: Bool = false)
        {
            self.name = name
            self.type = type
            self.key = key ?? name
            self.isChild = child
            self.isRequired = required
        }
    }

    /// How consecutive rows make one record with an array of children (an order and its devices).
    public struct Grouping: Sendable, Hashable {
        /// The record member whose equal values on consecutive rows make them one record.
        public var key: String
        /// The record member that holds the children (`devices`).
        public var childrenKey: String
        /// The child member that must be present for a row to add a child.
        public var childKey: String

        public init(key: String, childrenKey: String, childKey: String) {
            self.key = key
            self.childrenKey = childrenKey
            self.childKey = childKey
        }
    }

    public var columns: [Column]
    public var grouping: Grouping?

    public init(columns: [Column], grouping: Grouping? = nil) {
        self.columns = columns
        self.grouping = grouping
    }

    /// The columns of the `Product` fields (docs/protocol.md "Product").
    public static let products = ImportSchema(columns: [
        Column("id"), Column("storeId"), Column("name", required: true), Column("price", required: true),
        Column("currency"), Column("sku"), Column("category"), Column("barcode"), Column("trackStock", .boolean),
        Column("quantity", .integer), Column("lowStockThreshold", .integer), Column("allowNegativeStock", .boolean),
        Column("parentId"), Column("variant"),
    ])

    /// Repair orders, one device a row (docs/protocol.md "Order"); a row without `deviceId` adds no device.
    public static let orders = ImportSchema(
        columns: [
            Column("id", required: true), Column("reference", required: true), Column("status"), Column("clientId"),
            Column("clientName"), Column("createdAt"), Column("deviceId", key: "id", child: true),
            Column("make", child: true), Column("model", child: true), Column("serial", child: true),
            Column("deviceStatus", key: "status", child: true),
        ],
        grouping: Grouping(key: "id", childrenKey: "devices", childKey: "id"))

    /// The column named `name`, in any case.
    public func column(named name: some StringProtocol) -> Column? {
        columns.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }
    }

    /// Matches a header row against the columns, through `mapping` first. Throws, naming the
    /// known columns, for a column it does not know (unless `ignoringUnknown`, which leaves
    /// it out), a column given twice, or a required one missing.
    public func header(
        _ names: [String], line: Int, mapping: ColumnMapping = ColumnMapping(), ignoringUnknown: Bool = false
    ) throws(ImportProblem) -> Header {
        var bound: [Column?] = []
        for (position, raw) in names.enumerated() {
            let name = String(trimmingSpaces(raw))
            let mapped = mapping.field(for: name)
            if mapped == "" {
                bound.append(nil)
                continue
            }
            guard !name.isEmpty else {
                if ignoringUnknown {
                    bound.append(nil)
                    continue
                }
                throw ImportProblem(
                    line: line, "column \(position + 1) of the header has no name; \(known); \(Self.unknownHint)")
            }
            guard let column = column(named: mapped ?? name) else {
                if ignoringUnknown {
                    bound.append(nil)
                    continue
                }
                throw ImportProblem(line: line, "unknown column '\(name)'; \(known); \(Self.unknownHint)")
            }
            guard !bound.contains(column) else {
                let hint = mapping.isEmpty ? "" : " once mapped; leave one of them out with --map 'Column='"
                throw ImportProblem(line: line, "the column '\(column.name)' is in the header twice\(hint)")
            }
            bound.append(column)
        }
        if let missing = columns.first(where: { $0.isRequired && !bound.contains($0) }) {
            throw ImportProblem(
                line: line,
                "the header has no '\(missing.name)' column, which every row needs; \(known); "
                    + "map the file's own column to it with --map 'Column=\(missing.name)'")
        }
        return Header(columns: bound)
    }

    private var known: String {
        "the columns are " + columns.map(\.name).joined(separator: ", ")
    }

    private static let unknownHint =
        "map a column to one of them with --map 'Column=field', or leave the columns this import does not know "
        + "out with --ignore-unknown-columns (or a --preset for a shop's export)"

    /// A header matched to the schema: turns rows into objects.
    public struct Header: Sendable, Hashable {
        /// The column of each field, in order; nil for a column left out.
        public let columns: [Column?]

        /// One row's cells as the record's members and its child's; nil for a row of empty cells.
        public func row(_ fields: [String], line: Int) throws(ImportProblem) -> Row? {
            // Lazily: a row of a large import makes no array of its cells.
            let cells = zip(columns, fields).lazy.compactMap { column, cell in column.map { ($0, cell) } }
            return try ImportSchema.row(cells, line: line)
        }
    }

    /// Cells of known columns as a row; nil when every cell is empty.
    static func row(_ cells: some Sequence<(Column, String)>, line: Int) throws(ImportProblem) -> Row? {
        var members: [String: JSONValue] = [:]
        var child: [String: JSONValue] = [:]
        for (column, cell) in cells where !cell.isEmpty {
            guard let value = try column.type.value(of: cell, column: column.name, line: line) else { continue }
            if column.isChild {
                child[column.key] = value
            } else {
                members[column.key] = value
            }
        }
        guard !members.isEmpty || !child.isEmpty else { return nil }
        return Row(line: line, members: members, child: child)
    }

    /// A row turned into JSON, before rows are grouped into records.
    public struct Row: Sendable, Hashable {
        public var line: Int
        public var members: [String: JSONValue]
        public var child: [String: JSONValue]
    }
}

extension ImportSchema.FieldType {
    /// The JSON value of a cell; nil for a cell of spaces where a number or flag goes.
    func value(of cell: String, column: String, line: Int) throws(ImportProblem) -> JSONValue? {
        if self == .string { return .string(FormulaCells.restored(cell)) }
        let text = trimmingSpaces(cell)
        guard !text.isEmpty else { return nil }
        switch self {
        case .integer:
            guard let number = Int64(text) else {
                throw ImportProblem(line: line, "\(column) must be a whole number such as 12; got '\(text)'", field: column)
            }
            return .int(number)
        case .boolean:
            switch text.lowercased() {
            case "true", "yes", "1": return .bool(true)
            case "false", "no", "0": return .bool(false)
            default:
                throw ImportProblem(
                    line: line, "\(column) must be true or false (or yes/no, 1/0); got '\(text)'", field: column)
            }
        case .string:
            return .string(FormulaCells.restored(cell))
        }
    }
}

/// `text` without the spaces and tabs at either end: a cell's padding. (Foundation's
/// `trimmingCharacters` costs more than the rest of a row's conversion.)
func trimmingSpaces(_ text: String) -> Substring {
    let isPadding = { (byte: UInt8) in byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
    guard let first = text.utf8.firstIndex(where: { !isPadding($0) }),
        let last = text.utf8.lastIndex(where: { !isPadding($0) })
    else { return "" }
    return text[first...last]
}
