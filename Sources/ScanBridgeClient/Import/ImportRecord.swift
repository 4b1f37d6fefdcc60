public import ScanBridgeModel

/// One record read from an import file, ready to validate and send: a product, an order.
public struct ImportRecord: Sendable, Hashable {
    /// The record as a JSON object, as the daemon's `*.upsert` method takes it.
    public var object: JSONValue
    /// Where it came from.
    public var lines: SourceLines

    public init(object: JSONValue, lines: SourceLines) {
        self.object = object
        self.lines = lines
    }
}

/// The lines a record came from: the one it starts on, and for a record made of several
/// CSV rows the row of each child (`devices[2]` came from line 14), so a problem with a
/// child points at its own row.
public struct SourceLines: Sendable, Hashable {
    public var line: Int
    /// For each array member made of rows, the line of each element.
    public var children: [String: [Int]]

    public init(line: Int, children: [String: [Int]] = [:]) {
        self.line = line
        self.children = children
    }

    /// The line of the row that holds `field` (`devices[1].serial`); the record's line by default.
    public func line(forField field: String?) -> Int {
        guard let field, let open = field.firstIndex(of: "["),
            let lines = children[String(field[..<open])],
            let close = field[open...].firstIndex(of: "]"),
            let index = Int(field[field.index(after: open)..<close]), lines.indices.contains(index)
        else { return line }
        return lines[index]
    }
}

/// What an import reader hands out: a record, or a row it had to skip.
public enum ImportItem: Sendable, Hashable {
    case record(ImportRecord)
    case problem(ImportProblem)
}

/// Gathers rows into records: each row is a record, except under a schema's grouping,
/// where consecutive rows with the same key make one record with a child per row.
struct RecordAssembler: Sendable {
    let grouping: ImportSchema.Grouping?
    private var pending: (members: [String: JSONValue], children: [JSONValue], lines: SourceLines)?

    init(grouping: ImportSchema.Grouping?) {
        self.grouping = grouping
    }

    /// Takes a row; returns the record it completed, if any.
    mutating func add(_ row: ImportSchema.Row) -> ImportRecord? {
        guard let grouping else {
            return ImportRecord(
                object: .object(row.members.merging(row.child) { first, _ in first }), lines: SourceLines(line: row.line))
        }
        let hasChild = row.child[grouping.childKey] != nil
        if var group = pending, let key = row.members[grouping.key], group.members[grouping.key] == key {
            group.members.merge(row.members) { first, _ in first }
            if hasChild {
                group.children.append(.object(row.child))
                group.lines.children[grouping.childrenKey, default: []].append(row.line)
            }
            pending = group
            return nil
        }
        let completed = finish()
        pending = (
            row.members, hasChild ? [.object(row.child)] : [],
            SourceLines(line: row.line, children: hasChild ? [grouping.childrenKey: [row.line]] : [:])
        )
        return completed
    }

    /// The record still being gathered, at the end of the input.
    mutating func finish() -> ImportRecord? {
        guard let group = pending, let grouping else { return nil }
        pending = nil
        var members = group.members
        // An order without device rows keeps the devices it has.
        if !group.children.isEmpty { members[grouping.childrenKey] = .array(group.children) }
        return ImportRecord(object: .object(members), lines: group.lines)
    }
}
