import FuzzSupport
import ScanBridgeModel

@testable import ScanBridgeClient

/// `scanbridge import`'s readers, the first byte choosing the CSV reader, the JSON splitter,
/// or a CSV import whole as `scanbridge import` reads it: its separator sniffed from the
/// header line or given, its encoding detected or given, a `--map` value or a map file's text
/// matched against the header, a shop's preset, the products' or the orders' columns. A file
/// of any bytes, read in chunks of any size, gives records and problems naming their line,
/// or a problem that stops the import, never a crash, and each problem moves the reader on.
enum FuzzImport: FuzzTarget {
    static func test(_ bytes: UnsafeBufferPointer<UInt8>) {
        var input = FuzzInput(bytes)
        switch input.byte() % 4 {
        case 0: read(with: CSVReader(), input.chunks()) { _ in }
        case 1: read(with: JSONSplitter(), input.chunks()) { _ = try? JSONValue(parsing: $0.bytes) }
        default: csvImport(&input)
        }
    }

    /// The options from one byte (its bits: the columns, the separator, the encoding,
    /// unknown columns left out, then a `--map` value, a map file or a preset), a mapping's
    /// text after a length byte, then the file.
    private static func csvImport(_ input: inout FuzzInput) {
        let choices = Int(input.byte())
        let schema = choices & 1 == 0 ? ImportSchema.products : ImportSchema.orders
        let delimiters: [CSVDelimiter?] = [nil] + CSVDelimiter.allCases
        let encodings: [ImportEncoding?] = [nil] + ImportEncoding.allCases
        // A preset reads the export's own columns, never a mapping, as the command takes them.
        let presets: [ImportPreset?] = [nil, nil] + ImportPreset.allCases
        var options = CSVImportOptions(
            delimiter: delimiters[choices >> 1 & 3], encoding: encodings[(choices >> 3 & 3) % encodings.count],
            ignoresUnknownColumns: choices & 0x20 != 0, preset: presets[choices >> 6])
        let mappingText = String(decoding: input.bytes(Int(input.byte())), as: UTF8.self)
        if options.preset == nil {
            var mapping = ColumnMapping()
            do throws(ImportProblem) {
                if choices >> 6 == 0 {
                    try mapping.add(argument: mappingText)
                } else {
                    try mapping.add(fileText: mappingText)
                }
                try mapping.validate(against: schema)
                options.mapping = mapping
            } catch {
                // The command stops at a bad mapping; the file is read without one, to reach the reader too.
            }
        }
        var decoder = CSVRecordDecoder(schema: schema, options: options)
        let chunks = input.chunks()
        let total = chunks.reduce(0) { $0 + $1.count }
        var problems = 0
        // False once a problem stopped the import, as `ImportReader` stops at one.
        func drain() -> Bool {
            while true {
                do throws(ImportProblem) {
                    switch try decoder.next() {
                    case nil: return true
                    case .record: continue
                    case .problem(let problem):
                        problems += 1
                        fuzzCheck(problems <= total + 1, "\(problems) problems from \(total) bytes: \(problem)")
                    }
                } catch {
                    return false
                }
            }
        }
        for chunk in chunks {
            decoder.append(chunk)
            guard drain() else { return }
        }
        decoder.finish()
        _ = drain()
    }

    private static func read<Parser: ChunkedParser>(
        with parser: Parser, _ chunks: [[UInt8]], _ use: (Parser.Output) -> Void
    ) {
        var parser = parser
        // A problem is at least a byte of input: more problems than bytes is a reader stuck in place.
        let total = chunks.reduce(0) { $0 + $1.count }
        var problems = 0
        func drain() {
            while true {
                do throws(ImportProblem) {
                    guard let output = try parser.next() else { return }
                    use(output)
                } catch {
                    problems += 1
                    fuzzCheck(problems <= total + 1, "\(problems) problems from \(total) bytes: \(error)")
                }
            }
        }
        for chunk in chunks {
            parser.append(chunk)
            drain()
        }
        parser.finish()
        drain()
    }
}
