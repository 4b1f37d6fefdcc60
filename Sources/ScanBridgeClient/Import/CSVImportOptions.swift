/// How a CSV import reads its file: the separator and text encoding (detected unless
/// given), and which field each column fills (by name, through a mapping, or a shop's preset).
public struct CSVImportOptions: Sendable, Hashable {
    /// Nil: detected from the header line (`CSVDelimiter.detect`).
    public var delimiter: CSVDelimiter?
    /// Nil: detected as the file streams (`ImportTextDecoder`).
    public var encoding: ImportEncoding?
    public var mapping: ColumnMapping
    /// Leave out the columns no field is named after, instead of refusing the file.
    public var ignoresUnknownColumns: Bool
    /// A shop's export, read by its own rules; the mapping then stays empty.
    public var preset: ImportPreset?

    public init(
        delimiter: CSVDelimiter? = nil, encoding: ImportEncoding? = nil, mapping: ColumnMapping = ColumnMapping(),
        ignoresUnknownColumns: Bool = false, preset: ImportPreset? = nil
    ) {
        self.delimiter = delimiter
        self.encoding = encoding
        self.mapping = mapping
        self.ignoresUnknownColumns = ignoresUnknownColumns
        self.preset = preset
    }
}
