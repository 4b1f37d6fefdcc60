import ScanBridgeModel

/// The records of an import file, read as its bytes arrive: an `AsyncSequence` of
/// `ImportItem`, a record or a row to skip (with its line). It holds one record and one
/// chunk at a time, whatever the size of the file.
///
/// ```swift
/// let file = try await FileChunks.open("catalog.csv")
/// for try await item in ImportReader(file, format: .csv, schema: .products) { … }
/// ```
///
/// It throws an `ImportProblem` when the file cannot be read on (an unknown column, a JSON
/// array whose brackets do not match), and what the chunks throw.
public struct ImportReader<Chunks: AsyncSequence>: AsyncSequence where Chunks.Element == [UInt8] {
    public typealias Element = ImportItem

    private let chunks: Chunks
    private let format: ImportFormat
    private let schema: ImportSchema
    private let options: CSVImportOptions

    /// - Parameters:
    ///   - chunks: The file's bytes, in chunks of any size (e.g. `FileChunks`).
    ///   - format: CSV, or JSON (an array or JSON Lines, told by the first byte).
    ///   - schema: The CSV columns and grouping; JSON objects are taken as they are.
    ///   - options: How a CSV file is read (separator, encoding, column mapping, preset).
    public init(_ chunks: Chunks, format: ImportFormat, schema: ImportSchema, options: CSVImportOptions = CSVImportOptions()) {
        self.chunks = chunks
        self.format = format
        self.schema = schema
        self.options = options
    }

    public func makeAsyncIterator() -> Iterator {
        let decoder: any RecordDecoder =
            switch format {
            case .csv: CSVRecordDecoder(schema: schema, options: options)
            case .json: JSONRecordDecoder()
            }
        return Iterator(chunks: chunks.makeAsyncIterator(), decoder: decoder)
    }

    public struct Iterator: AsyncIteratorProtocol {
        private var chunks: Chunks.AsyncIterator
        private var decoder: any RecordDecoder
        private var inputEnded = false

        init(chunks: Chunks.AsyncIterator, decoder: any RecordDecoder) {
            self.chunks = chunks
            self.decoder = decoder
        }

        public mutating func next() async throws -> ImportItem? {
            while true {
                if let item = try decoder.next() { return item }
                if inputEnded { return nil }
                if let chunk = try await chunks.next() {
                    decoder.append(chunk)
                } else {
                    decoder.finish()
                    inputEnded = true
                }
            }
        }
    }
}
