import ScanBridgeClient
import ScanBridgeModel
import Testing

@Suite("Column mapping")
struct ColumnMappingTests {
    static func mapping(_ arguments: String...) throws -> ColumnMapping {
        var mapping = ColumnMapping()
        for argument in arguments { try mapping.add(argument: argument) }
        return mapping
    }

    @Test func pairsAreSplitAtCommasAndTheLastEquals() throws {
        let mapping = try Self.mapping("Variant Barcode=barcode, Title = name", #"Price\, incl. VAT=price,a\\b=sku,x=y=category"#)
        #expect(
            mapping.pairs.map { "\($0.source)→\($0.field)" } == [
                "Variant Barcode→barcode", "Title→name", "Price, incl. VAT→price", #"a\b→sku"#, "x=y→category",
            ])
        #expect(mapping.field(for: " variant barcode ") == "barcode")
    }

    @Test func aMapFileHasOnePairALineAndComments() throws {
        var mapping = ColumnMapping()
        try mapping.add(fileText: "# Shop export\r\n\nPrice, incl. VAT=price\r\n  # indented comment\nNotes=\n")
        #expect(mapping.pairs.map(\.source) == ["Price, incl. VAT", "Notes"])
        #expect(mapping.field(for: "Notes") == "")
        #expect(throws: ImportProblem(line: nil, "line 2 of the map file: 'Title' is not 'Source column=field'")) {
            var other = ColumnMapping()
            try other.add(fileText: "A=name\nTitle\n")
        }
    }

    @Test func mistakesAreNamed() throws {
        #expect(throws: ImportProblem(line: nil, "--map: the column 'title' is mapped twice")) {
            _ = try Self.mapping("Title=name,title=sku")
        }
        #expect(throws: ImportProblem(line: nil, "--map: '=name' names no column before the =")) {
            _ = try Self.mapping("=name")
        }
        let problem = #expect(throws: ImportProblem.self) {
            try Self.mapping("EAN=ean").validate(against: .products)
        }
        #expect(problem?.message.hasPrefix("--map: 'EAN' is mapped to 'ean', which is no field; the fields are id,") == true)
    }

    @Test func mappedColumnsTakeTheFieldsPlace() async throws {
        let text = "EAN;Bezeichnung;Preis;Notiz\n5901234123457;Kaffee;2,50;x\n"
        let options = CSVImportOptions(mapping: try Self.mapping("EAN=barcode,Bezeichnung=name,Preis=price,Notiz="))
        let items = try await CSVDialectTests.records(Array(text.utf8), options: options)
        #expect(
            items == [
                .record(
                    ImportRecord(
                        object: ["barcode": "5901234123457", "name": "Kaffee", "price": "2,50"], lines: SourceLines(line: 2)))
            ])
    }

    @Test func anUnknownColumnIsAnErrorNamingTheFlagUnlessIgnored() async throws {
        let text = "Handle,name,price\nx,Tea,1\n"
        let problem = await #expect(throws: ImportProblem.self) {
            _ = try await CSVDialectTests.records(Array(text.utf8))
        }
        #expect(problem?.message.hasPrefix("unknown column 'Handle'; the columns are id, storeId, name") == true)
        #expect(problem?.message.contains("--ignore-unknown-columns") == true)
        let items = try await CSVDialectTests.records(
            Array(text.utf8), options: CSVImportOptions(ignoresUnknownColumns: true))
        #expect(items == [.record(ImportRecord(object: ["name": "Tea", "price": "1"], lines: SourceLines(line: 2)))])
    }

    @Test func aMappedColumnMeetingTheSameFieldIsInTheHeaderTwice() async throws {
        let text = "Title,name,price\nTea,Tea,1\n"
        await #expect(
            throws: ImportProblem(
                line: 1, "the column 'name' is in the header twice once mapped; leave one of them out with --map 'Column='")
        ) {
            _ = try await CSVDialectTests.records(
                Array(text.utf8), options: CSVImportOptions(mapping: try Self.mapping("Title=name")))
        }
        let items = try await CSVDialectTests.records(
            Array(text.utf8), options: CSVImportOptions(mapping: try Self.mapping("Title=name,name=")))
        #expect(items.count == 1)
    }
}
