import ScanBridgeClient
import ScanBridgeModel
import Testing

@Suite("Import reader")
struct ImportReaderTests {
    /// `text` as a stream of chunks of `size` bytes.
    static func chunks(_ text: String, size: Int = 4) -> AsyncStream<[UInt8]> {
        let bytes = Array(text.utf8)
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        for start in stride(from: 0, to: bytes.count, by: size) {
            continuation.yield(Array(bytes[start..<min(bytes.count, start + size)]))
        }
        continuation.finish()
        return stream
    }

    static func items(_ text: String, _ format: ImportFormat, _ schema: ImportSchema = .products) async throws -> [ImportItem] {
        var items: [ImportItem] = []
        for try await item in ImportReader(chunks(text), format: format, schema: schema) { items.append(item) }
        return items
    }

    @Test func csvRowsAndTheRowsToSkip() async throws {
        let items = try await Self.items(
            "\u{FEFF}Name,Price,Quantity\r\nTea,1.50,3\r\n\r\n\"Cake, \"\"lemon\"\"\",2,x\r\nBun,1\r\n,,\r\nScone,2.10,\r\n", .csv
        )
        #expect(
            items == [
                .record(ImportRecord(object: ["name": "Tea", "price": "1.50", "quantity": 3], lines: SourceLines(line: 2))),
                .problem(ImportProblem(line: 4, "quantity must be a whole number such as 12; got 'x'", field: "quantity")),
                .problem(
                    ImportProblem(
                        line: 5, "this row has 2 fields but the header has 3; put a field that holds a comma in double quotes")),
                .record(ImportRecord(object: ["name": "Scone", "price": "2.10"], lines: SourceLines(line: 7))),
            ])
    }

    @Test func aQuoteNeverClosedStopsTheImport() async throws {
        var items: [ImportItem] = []
        await #expect(
            throws: ImportProblem(
                line: 3, "a quoted field is never closed, so the rest of the file was read into it; check for a stray \"")
        ) {
            for try await item in ImportReader(
                Self.chunks("name,price\nTea,1\n\"Bun,2\nCake,3\n"), format: .csv, schema: .products)
            {
                items.append(item)
            }
        }
        #expect(items.count == 1)
    }

    @Test func aBadHeaderStopsBeforeAnyRecord() async {
        await #expect(throws: ImportProblem.self) {
            _ = try await Self.items("name,price,colour\nTea,1,red\n", .csv)
        }
        await #expect(throws: ImportProblem.self) {
            _ = try await Self.items("", .csv)
        }
    }

    @Test func consecutiveRowsOfOneOrderMakeOneRecord() async throws {
        let csv = """
            id,reference,clientName,deviceId,make,model,deviceStatus
            ord_1,RM-1,Ada,dev_1,Apple,iPhone 13,diagnosing
            ord_1,,,dev_2,Samsung,S21,
            ord_2,RM-2,Bob,,,,
            ord_3,RM-3,,dev_3,,,
            ord_1,RM-1b,,dev_4,,,

            """
        let items = try await Self.items(csv, .csv, .orders)
        #expect(
            items == [
                .record(
                    ImportRecord(
                        object: [
                            "id": "ord_1", "reference": "RM-1", "clientName": "Ada",
                            "devices": [
                                ["id": "dev_1", "make": "Apple", "model": "iPhone 13", "status": "diagnosing"],
                                ["id": "dev_2", "make": "Samsung", "model": "S21"],
                            ],
                        ],
                        lines: SourceLines(line: 2, children: ["devices": [2, 3]]))),
                .record(
                    ImportRecord(object: ["id": "ord_2", "reference": "RM-2", "clientName": "Bob"], lines: SourceLines(line: 4))),
                .record(
                    ImportRecord(
                        object: ["id": "ord_3", "reference": "RM-3", "devices": [["id": "dev_3"]]],
                        lines: SourceLines(line: 5, children: ["devices": [5]]))),
                .record(
                    ImportRecord(
                        object: ["id": "ord_1", "reference": "RM-1b", "devices": [["id": "dev_4"]]],
                        lines: SourceLines(line: 6, children: ["devices": [6]]))),
            ])
        #expect(SourceLines(line: 2, children: ["devices": [2, 3]]).line(forField: "devices[1].model") == 3)
        #expect(SourceLines(line: 2, children: ["devices": [2, 3]]).line(forField: "devices[7]") == 2)
        #expect(SourceLines(line: 2, children: ["devices": [2, 3]]).line(forField: "reference") == 2)
    }

    @Test func jsonElementsWithTheirLines() async throws {
        let json = """
            [
              {"name": "Tea", "price": "1.50"},
              {"name": "Cake",
               "price": 2 "x"},
              [1],
              {"name": "Bun", "price": 1}
            ]
            """
        let items = try await Self.items(json, .json)
        #expect(
            items == [
                .record(ImportRecord(object: ["name": "Tea", "price": "1.50"], lines: SourceLines(line: 2))),
                .problem(ImportProblem(line: 4, "not valid JSON: expected ',' or '}'")),
                .problem(ImportProblem(line: 5, "expected a JSON object with named fields, not an array")),
                .record(ImportRecord(object: ["name": "Bun", "price": 1], lines: SourceLines(line: 6))),
            ])
    }

    @Test func jsonLines() async throws {
        let items = try await Self.items("{\"name\": \"Tea\"}\ngarbage\n\n{\"name\": \"Bun\"}\n", .json)
        #expect(
            items == [
                .record(ImportRecord(object: ["name": "Tea"], lines: SourceLines(line: 1))),
                .problem(ImportProblem(line: 2, "not valid JSON: unexpected character")),
                .record(ImportRecord(object: ["name": "Bun"], lines: SourceLines(line: 4))),
            ])
    }

    @Test(arguments: [("catalog.csv", ImportFormat.csv), ("a/b.JSON", .json), ("x.jsonl", .json), ("x.ndjson", .json)])
    func formatFromTheExtension(_ path: String, _ format: ImportFormat) {
        #expect(ImportFormat(path: path) == format)
    }

    @Test func noFormatWithoutAKnownExtension() {
        #expect(ImportFormat(path: "catalog") == nil)
        #expect(ImportFormat(path: "dir.csv/catalog") == nil)
        #expect(ImportFormat(path: "catalog.xlsx") == nil)
    }
}
