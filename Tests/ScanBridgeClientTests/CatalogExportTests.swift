import ScanBridgeClient
import ScanBridgeModel
import Testing

@Suite("Catalog export")
struct CatalogExportTests {
    /// A cell a spreadsheet would run as a formula is written as text, and reads back as it was.
    @Test(arguments: [
        #"=HYPERLINK("http://attacker.example","Click")"#, "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1:A9)", "\t=1",
    ])
    func formulaCellsAreWrittenAsTextAndReadBackUnchanged(name: String) throws {
        let product: JSONValue = ["name": .string(name), "price": "1.50"]
        let row = CatalogExport.csv.line(product)
        #expect(row.contains("'" + name.prefix(1)), "\(row)")
        let header = try ImportSchema.products.header(["name", "price"], line: 1)
        let read = try #require(try header.row([CatalogExport.cell(product["name"]), "1.50"], line: 2))
        #expect(read.members["name"] == .string(name))
    }

    @Test(arguments: ["-3", "+1.50", "Tea, green", "'quoted"])
    func otherCellsAreWrittenAsTheyAre(text: String) throws {
        #expect(CatalogExport.cell(.string(text)) == text)
        let header = try ImportSchema.products.header(["name", "price"], line: 1)
        #expect(try header.row([text, "1"], line: 2)?.members["name"] == .string(text))
    }
}
