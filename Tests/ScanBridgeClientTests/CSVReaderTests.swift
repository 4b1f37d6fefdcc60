import ScanBridgeClient
import Testing

@Suite("CSV reader")
struct CSVReaderTests {
    /// What reading gives: a record (`line: fields`) or an error (`line: !message`).
    enum Read: Equatable, CustomStringConvertible {
        case record(Int, [String])
        case error(Int?, String)

        var description: String {
            switch self {
            case .record(let line, let fields): "\(line): \(fields)"
            case .error(let line, let message): "\(line.map(String.init) ?? "-"): !\(message)"
            }
        }
    }

    /// Reads `input` given in chunks of `chunkSize` bytes, going on after each error.
    static func read(_ input: [UInt8], chunkSize: Int) -> [Read] {
        CSVReader.results(of: input, chunkSize: chunkSize, parser: CSVReader()).results.map { result in
            switch result {
            case .success(let record): .record(record.line, record.fields)
            case .failure(let error): .error(error.line, error.message)
            }
        }
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var input: [UInt8]
        var expected: [Read]
        var testDescription: String { name }

        init(_ name: String, _ input: String, _ expected: [Read]) {
            self.init(name, Array(input.utf8), expected)
        }

        init(_ name: String, _ input: [UInt8], _ expected: [Read]) {
            self.name = name
            self.input = input
            self.expected = expected
        }
    }

    static let cases: [Case] = [
        Case("plain rows", "a,b\n1,2\n", [.record(1, ["a", "b"]), .record(2, ["1", "2"])]),
        Case("no line break at the end", "a,b\n1,2", [.record(1, ["a", "b"]), .record(2, ["1", "2"])]),
        Case(
            "quoted field with commas", "name,price\n\"Tea, green\",3.50\n",
            [.record(1, ["name", "price"]), .record(2, ["Tea, green", "3.50"])]),
        Case(
            "doubled quotes", "a,b\n\"He said \"\"hi\"\"\",\"\"\"\"\n",
            [.record(1, ["a", "b"]), .record(2, ["He said \"hi\"", "\""])]),
        Case(
            "line breaks inside quotes count as lines", "a,b\n\"one\ntwo\nthree\",x\ny,z\n",
            [.record(1, ["a", "b"]), .record(2, ["one\ntwo\nthree", "x"]), .record(5, ["y", "z"])]),
        Case("CRLF", "a,b\r\n1,2\r\n3,4", [.record(1, ["a", "b"]), .record(2, ["1", "2"]), .record(3, ["3", "4"])]),
        Case(
            "CRLF inside quotes is kept", "a,b\r\n\"x\r\ny\",z\r\nq,r\r\n",
            [.record(1, ["a", "b"]), .record(2, ["x\r\ny", "z"]), .record(4, ["q", "r"])]),
        Case("CR alone ends a line", "a,b\r1,2\r", [.record(1, ["a", "b"]), .record(2, ["1", "2"])]),
        Case(
            "byte order mark skipped", [0xEF, 0xBB, 0xBF] + Array("name,price\nTea,1\n".utf8),
            [.record(1, ["name", "price"]), .record(2, ["Tea", "1"])]),
        Case(
            "empty lines skipped", "a,b\n\n1,2\r\n\r\n\n3,4\n\n",
            [.record(1, ["a", "b"]), .record(3, ["1", "2"]), .record(6, ["3", "4"])]),
        Case(
            "empty fields kept", "a,b,c\n,,\n1,,\"\"\n",
            [.record(1, ["a", "b", "c"]), .record(2, ["", "", ""]), .record(3, ["1", "", ""])]),
        Case(
            "a quote inside an unquoted field is kept", "a,b\n5\" screen,x\n",
            [.record(1, ["a", "b"]), .record(2, ["5\" screen", "x"])]),
        Case("UTF-8 text", "name\nCafé ☕\n", [.record(1, ["name"]), .record(2, ["Café ☕"])]),
        Case("only a header", "a,b\n", [.record(1, ["a", "b"])]),
        Case("empty input", "", []),
        Case("only a byte order mark", [0xEF, 0xBB, 0xBF], []),
        // Errors: each names the line the row starts on; reading goes on after it.
        Case(
            "ragged row: too many fields", "a,b\n1,2,3\n4,5\n",
            [
                .record(1, ["a", "b"]),
                .error(2, "this row has 3 fields but the header has 2; put a field that holds a comma in double quotes"),
                .record(3, ["4", "5"]),
            ]),
        Case(
            "ragged row: too few fields", "a,b\n\"x\ny\"\n4,5\n",
            [
                .record(1, ["a", "b"]),
                .error(2, "this row has 1 field but the header has 2; put a field that holds a comma in double quotes"),
                .record(4, ["4", "5"]),
            ]),
        Case(
            "text after a closing quote", "a,b\n\"x\"y,2\n3,4\n",
            [
                .record(1, ["a", "b"]),
                .error(
                    2,
                    "a quoted field must end at a comma or the end of the line, but 'y' follows its closing quote; write a quote inside a quoted field as \"\""
                ),
                .record(3, ["3", "4"]),
            ]),
        Case(
            "a quote never closed", "a,b\n1,2\n3,\"oops\n4,5\n",
            [
                .record(1, ["a", "b"]), .record(2, ["1", "2"]),
                .error(3, "a quoted field is never closed, so the rest of the file was read into it; check for a stray \""),
            ]),
        Case(
            "not UTF-8", Array("a,b\n".utf8) + [0xFF, 0x2C, 0x31, 0x0A] + Array("2,3\n".utf8),
            [
                .record(1, ["a", "b"]),
                .error(
                    2,
                    "this row is not valid UTF-8 text; save the file as UTF-8, "
                        + "or give --encoding windows-1252 for a file Excel saved as CSV"),
                .record(3, ["2", "3"]),
            ]),
    ]

    @Test(arguments: cases)
    func reads(_ test: Case) {
        #expect(Self.read(test.input, chunkSize: .max) == test.expected)
    }

    /// However the input is cut into chunks, the records are the same.
    @Test(arguments: cases)
    func chunkBoundariesDoNotMatter(_ test: Case) {
        for size in [1, 2, 3, 5, 8] {
            #expect(Self.read(test.input, chunkSize: size) == test.expected, "chunks of \(size)")
        }
    }

    @Test func aQuoteOpenForMoreThanAMebibyteStopsTheReader() throws {
        var reader = CSVReader()
        reader.append(Array("a,b\n1,\"".utf8))
        #expect(try reader.next()?.fields == ["a", "b"])
        let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 64 * 1024)
        var thrown: ImportProblem?
        for _ in 0..<20 where thrown == nil {
            reader.append(chunk)
            do { _ = try reader.next() } catch { thrown = error }
        }
        #expect(thrown?.line == 2)
        #expect(reader.isStopped)
        reader.append(Array("3,4\n".utf8))
        #expect(try reader.next() == nil, "it takes no more input")
    }

    @Test func theFirstRecordSetsTheFieldCount() throws {
        var reader = CSVReader()
        reader.append(Array("id,name,price\n".utf8))
        #expect(reader.expectedFieldCount == nil)
        _ = try reader.next()
        #expect(reader.expectedFieldCount == 3)
    }

    @Test func aRecordWaitsForItsEnd() throws {
        var reader = CSVReader()
        reader.append(Array("a,b\n\"x,".utf8))
        #expect(try reader.next()?.fields == ["a", "b"])
        #expect(try reader.next() == nil, "the quoted field is still open")
        reader.append(Array("y\",z".utf8))
        #expect(try reader.next() == nil, "the last record may go on")
        reader.finish()
        #expect(try reader.next() == CSVReader.Record(line: 2, fields: ["x,y", "z"]))
        #expect(try reader.next() == nil)
    }
}
