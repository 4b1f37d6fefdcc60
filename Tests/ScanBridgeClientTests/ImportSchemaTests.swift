import ScanBridgeClient
import ScanBridgeModel
import Testing

@Suite("Import rows to JSON")
struct ImportSchemaTests {
    @Test func headersMatchWithoutRegardToCase() throws {
        let header = try ImportSchema.products.header(["NAME", " Price ", "barcode", "trackstock", "LowStockThreshold"], line: 1)
        #expect(header.columns.map { $0?.name } == ["name", "price", "barcode", "trackStock", "lowStockThreshold"])
    }

    @Test func anUnknownColumnNamesTheKnownOnes() {
        #expect {
            try ImportSchema.products.header(["name", "prise"], line: 1)
        } throws: { error in
            let problem = try #require(error as? ImportProblem)
            return problem.line == 1 && problem.message.contains("unknown column 'prise'")
                && problem.message.contains(
                    "id, storeId, name, price, currency, sku, category, barcode, trackStock, "
                        + "quantity, lowStockThreshold, allowNegativeStock, parentId, variant")
        }
    }

    @Test(arguments: [
        (["name", "price", "Name"], "the column 'name' is in the header twice"),
        (["name", "barcode"], "the header has no 'price' column"),
        (["name", "", "price"], "column 2 of the header has no name"),
    ])
    func badHeaders(_ names: [String], _ message: String) {
        #expect {
            try ImportSchema.products.header(names, line: 1)
        } throws: { error in
            (error as? ImportProblem)?.message.contains(message) == true
        }
    }

    @Test func cellsBecomeTypedMembers() throws {
        let header = try ImportSchema.products.header(
            ["name", "price", "sku", "trackStock", "quantity", "lowStockThreshold", "allowNegativeStock", "category"], line: 1)
        let row = try #require(try header.row(["Tea, green", "3.499", "", "yes", " 12 ", "-3", "0", " "], line: 7))
        #expect(row.line == 7)
        #expect(
            row.members == [
                "name": "Tea, green", "price": "3.499", "trackStock": true, "quantity": 12, "lowStockThreshold": -3,
                "allowNegativeStock": false, "category": " ",
            ])
        #expect(row.child.isEmpty)
    }

    @Test(arguments: [
        ("true", true), ("TRUE", true), ("yes", true), ("Yes", true), ("1", true),
        ("false", false), ("False", false), ("no", false), ("NO", false), ("0", false),
    ])
    func flags(_ cell: String, _ value: Bool) throws {
        let header = try ImportSchema.products.header(["name", "price", "trackStock"], line: 1)
        #expect(try header.row(["x", "1", cell], line: 2)?.members["trackStock"] == .bool(value))
    }

    @Test(arguments: [
        ("trackStock", "maybe", "trackStock must be true or false (or yes/no, 1/0); got 'maybe'"),
        ("quantity", "3.5", "quantity must be a whole number such as 12; got '3.5'"),
        ("quantity", "12 units", "quantity must be a whole number such as 12; got '12 units'"),
    ])
    func badCells(_ column: String, _ cell: String, _ message: String) throws {
        let header = try ImportSchema.products.header(["name", "price", column], line: 1)
        #expect(throws: ImportProblem(line: 4, message, field: column)) {
            try header.row(["x", "1", cell], line: 4)
        }
    }

    @Test func aRowOfEmptyCellsIsNoRow() throws {
        let header = try ImportSchema.products.header(["name", "price"], line: 1)
        #expect(try header.row(["", ""], line: 2) == nil)
    }
}
