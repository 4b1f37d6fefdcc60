import ScanBridgeModel

/// Turns the bytes of an import file into records, chunk by chunk: the part of reading
/// that knows the format. A thrown `ImportProblem` stops the import.
typealias RecordDecoder = ChunkedParser<ImportItem> & Sendable

/// CSV: the header row names the columns, each later row becomes a record (or, grouped,
/// part of one).
struct CSVRecordDecoder: ChunkedParser, Sendable {
    private let schema: ImportSchema
    private var reader = CSVReader()
    private var header: ImportSchema.Header?
    private var assembler: RecordAssembler
    private var isFinished = false

    init(schema: ImportSchema) {
        self.schema = schema
        self.assembler = RecordAssembler(grouping: schema.grouping)
    }

    mutating func append(_ chunk: some Sequence<UInt8>) { reader.append(chunk) }

    mutating func finish() {
        reader.finish()
        isFinished = true
    }

    mutating func next() throws(ImportProblem) -> ImportItem? {
        while true {
            let record: CSVReader.Record?
            do {
                record = try reader.next()
            } catch {
                // A broken row is skipped; a broken header, or a fault the reader cannot read past, stops it all.
                guard header != nil, !reader.isStopped else { throw error }
                return .problem(error)
            }
            guard let record else {
                guard isFinished else { return nil }
                guard header != nil else {
                    throw ImportProblem(
                        line: nil,
                        "there is no header row: a CSV import starts with a line naming the columns, "
                            + "e.g. name,price,barcode")
                }
                return assembler.finish().map(ImportItem.record)
            }
            guard let header else {
                header = try schema.header(record.fields, line: record.line)
                continue
            }
            do {
                if let row = try header.row(record.fields, line: record.line), let completed = assembler.add(row) {
                    return .record(completed)
                }
            } catch {
                return .problem(error)
            }
        }
    }
}

/// JSON: each element of the top-level array, or each line, is a record.
struct JSONRecordDecoder: ChunkedParser, Sendable {
    private var splitter = JSONSplitter()

    mutating func append(_ chunk: some Sequence<UInt8>) { splitter.append(chunk) }

    mutating func finish() { splitter.finish() }

    mutating func next() throws(ImportProblem) -> ImportItem? {
        try splitter.next().map(Self.item)
    }

    /// An element parsed; a parse error names the line it is on.
    static func item(_ element: JSONSplitter.Element) -> ImportItem {
        do {
            let value = try JSONValue(parsing: element.bytes)
            guard case .object = value else {
                return .problem(
                    ImportProblem(line: element.line, "expected a JSON object with named fields, not \(value.typeName)"))
            }
            return .record(ImportRecord(object: value, lines: SourceLines(line: element.line)))
        } catch {
            let offset = min(error.offset, element.bytes.count)
            let line = element.line + element.bytes[..<offset].lazy.filter { $0 == UInt8(ascii: "\n") }.count
            return .problem(ImportProblem(line: line, "not valid JSON: \(error.reason)"))
        }
    }
}
