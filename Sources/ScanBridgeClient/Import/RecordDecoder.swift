import ScanBridgeModel

/// Turns the bytes of an import file into records, chunk by chunk: the part of reading
/// that knows the format. A thrown `ImportProblem` stops the import.
typealias RecordDecoder = ChunkedParser<ImportItem> & Sendable

/// CSV: the header row names the columns, each later row becomes a record (or, grouped,
/// part of one).
struct CSVRecordDecoder: ChunkedParser, Sendable {
    private let schema: ImportSchema
    private let options: CSVImportOptions
    private var text: ImportTextDecoder
    private var reader: CSVReader
    private var header: ImportSchema.Header?
    /// A shop's export rows, once its header was read.
    private var preset: (any PresetRows)?
    private var assembler: RecordAssembler
    private var isFinished = false

    init(schema: ImportSchema, options: CSVImportOptions = CSVImportOptions()) {
        self.schema = schema
        self.options = options
        self.text = ImportTextDecoder(encoding: options.encoding)
        self.reader = CSVReader(delimiter: options.delimiter?.byte)
        self.assembler = RecordAssembler(grouping: schema.grouping)
    }

    mutating func append(_ chunk: some Sequence<UInt8>) { reader.append(text.decode(Array(chunk))) }

    mutating func finish() {
        reader.append(text.finish())
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
                guard header != nil || preset != nil, !reader.isStopped else { throw error }
                return .problem(error)
            }
            guard let record else {
                guard isFinished else { return nil }
                guard header != nil || preset != nil else {
                    throw ImportProblem(
                        line: nil,
                        "there is no header row: a CSV import starts with a line naming the columns, "
                            + "e.g. name,price,barcode")
                }
                return assembler.finish().map(ImportItem.record)
            }
            if header == nil, preset == nil {
                try readHeader(record)
                continue
            }
            do {
                if let row = try row(of: record), let completed = assembler.add(row) {
                    return .record(completed)
                }
            } catch {
                return .problem(error)
            }
        }
    }

    private mutating func readHeader(_ record: CSVReader.Record) throws(ImportProblem) {
        if let kind = options.preset {
            var rows = kind.makeRows()
            try rows.header(ExportColumns(record.fields), line: record.line)
            preset = rows
        } else {
            header = try schema.header(
                record.fields, line: record.line, mapping: options.mapping,
                ignoringUnknown: options.ignoresUnknownColumns)
        }
    }

    /// A row's cells as the schema's, through the preset or the header.
    private mutating func row(of record: CSVReader.Record) throws(ImportProblem) -> ImportSchema.Row? {
        guard var rows = preset else { return try header?.row(record.fields, line: record.line) }
        let product = rows.product(record.fields, line: record.line)
        preset = rows
        guard let product else { return nil }
        let cells = product.compactMap { name, value in schema.column(named: name).map { ($0, value) } }
        return try ImportSchema.row(cells, line: record.line)
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
