import ScanBridgeClient
import ScanBridgeModel
import Testing

/// Files as spreadsheets save them: other separators, Excel's Windows-1252, a byte order mark.
@Suite("CSV dialects")
struct CSVDialectTests {
    /// The records of `bytes` read as a products CSV, in chunks of `size` bytes.
    static func records(
        _ bytes: [UInt8], size: Int = 5, options: CSVImportOptions = CSVImportOptions()
    ) async throws -> [ImportItem] {
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        for start in stride(from: 0, to: bytes.count, by: size) {
            continuation.yield(Array(bytes[start..<min(bytes.count, start + size)]))
        }
        continuation.finish()
        var items: [ImportItem] = []
        for try await item in ImportReader(stream, format: .csv, schema: .products, options: options) {
            items.append(item)
        }
        return items
    }

    static func names(_ items: [ImportItem]) -> [String] {
        items.compactMap { item in
            guard case .record(let record) = item else { return nil }
            return record.object["name"]?.stringValue
        }
    }

    @Test(arguments: [(",", 1), (";", 3), ("\t", 7), (";", 64)])
    func theSeparatorIsFoundInTheHeader(separator: String, chunkSize: Int) async throws {
        let text =
            ["name", "price", "barcode"].joined(separator: separator) + "\r\n"
            + ["\"Cake\(separator) lemon, large\"", "\"2,50\"", "5901234123457"].joined(separator: separator) + "\r\n"
        let items = try await Self.records(Array(text.utf8), size: chunkSize)
        guard case .record(let record)? = items.first, items.count == 1 else {
            Issue.record("expected one record, got \(items)")
            return
        }
        #expect(record.object["name"] == .string("Cake\(separator) lemon, large"))
        #expect(record.object["price"] == .string("2,50"))
    }

    @Test func aSemicolonInsideQuotesInTheHeaderDoesNotCount() async throws {
        let text = "\"name;long\",price\nTea,1\n"
        let detected = CSVDelimiterProbe.detect(text)
        #expect(detected == UInt8(ascii: ","))
    }

    @Test func aGivenSeparatorWins() async throws {
        // Detection would pick the semicolons of the header; the file's fields are tab-separated.
        let text = "name;x\tprice\nTea;x\t1\n"
        let items = try await Self.records(
            Array(text.utf8), options: CSVImportOptions(delimiter: .tab, mapping: Self.map("name;x=name")))
        #expect(Self.names(items) == ["Tea;x"])
    }

    static func map(_ argument: String) -> ColumnMapping {
        var mapping = ColumnMapping()
        try? mapping.add(argument: argument)
        return mapping
    }

    /// "Café crème", "5 €", "Straße" in Windows-1252, as Excel saves them.
    static let windows1252: [UInt8] =
        Array("name;price;category\r\nCaf".utf8) + [0xE9] + Array(" cr".utf8) + [0xE8] + Array("me;2,50;Gr".utf8)
        + [0xFC, 0xDF, 0x65] + Array("\r\nStra".utf8) + [0xDF, 0x65] + Array(";5;".utf8) + [0x80, 0x20, 0x96, 0x20, 0x81]
        + Array("\r\n".utf8)

    @Test(arguments: [1, 3, 16, 4096])
    func windows1252IsDetectedAndRead(chunkSize: Int) async throws {
        let items = try await Self.records(Self.windows1252, size: chunkSize)
        #expect(Self.names(items) == ["Café crème", "Straße"])
        guard case .record(let second)? = items.last else { return }
        // 0x80 is the euro sign, 0x96 an en dash, and 0x81 (undefined) its C1 control.
        #expect(second.object["category"] == .string("€ – \u{81}"))
    }

    @Test func utf8WithAByteOrderMarkIsRead() async throws {
        let text = "\u{FEFF}name,price\nCafé crème,2.50\nStraße €,1\n"
        for size in [1, 2, 7, 100] {
            let items = try await Self.records(Array(text.utf8), size: size)
            #expect(Self.names(items) == ["Café crème", "Straße €"], "chunks of \(size)")
        }
    }

    @Test func forcingTheEncodingReadsUTF8BytesAsWindows1252() async throws {
        let text = "name,price\nCafé,2.50\n"
        let items = try await Self.records(Array(text.utf8), options: CSVImportOptions(encoding: .windows1252))
        #expect(Self.names(items) == ["CafÃ©"])
    }

    @Test func aLaterRowThatIsNotUTF8IsReportedByItsLine() async throws {
        // The first non-ASCII bytes are UTF-8, so the file is; a later Windows-1252 row is
        // skipped and named, never stored with a wrong letter.
        let bytes = Array("name,price\nCafé,1\nTea,2\nCaf".utf8) + [0xE9] + Array(",3\nBun,4\n".utf8)
        // The first chunk holds the first "é": UTF-8, decided there.
        let items = try await Self.records(bytes, size: 16)
        #expect(Self.names(items) == ["Café", "Tea", "Bun"])
        let problems = items.compactMap { item -> ImportProblem? in
            if case .problem(let problem) = item { return problem }
            return nil
        }
        #expect(problems.map(\.line) == [4])
        #expect(problems.first?.message.contains("--encoding windows-1252") == true)
    }

    @Test func theDecoderHoldsBackASequenceCutByTheChunk() {
        var decoder = ImportTextDecoder(encoding: nil)
        let euro = Array("€".utf8)
        #expect(decoder.decode(Array("ab".utf8) + euro.prefix(2)) == Array("ab".utf8))
        #expect(decoder.encoding == nil)
        #expect(decoder.decode(Array(euro.suffix(1)) + Array("c".utf8)) == euro + Array("c".utf8))
        #expect(decoder.encoding == .utf8)
        #expect(decoder.finish() == [])
    }
}

/// Detection alone, on a header line.
enum CSVDelimiterProbe {
    static func detect(_ text: String) -> UInt8? {
        var reader = CSVReader(delimiter: nil)
        reader.append(Array(text.utf8))
        reader.finish()
        _ = try? reader.next()
        return reader.delimiter
    }
}
