import ScanBridgeCodes
import Testing

@Suite("GTIN.normalize")
struct GTINNormalizeTests {
    @Test(
        "every GTIN length becomes GTIN-14",
        arguments: [
            ("96385074", "00000096385074"),  // GTIN-8
            ("036000291452", "00036000291452"),  // GTIN-12 (UPC-A)
            ("5901234123457", "05901234123457"),  // GTIN-13
            ("09506000134352", "09506000134352"),  // GTIN-14 / ITF-14
            ("0000000000000", "00000000000000"),
        ])
    func normalizes(_ code: String, expected: String) throws {
        #expect(try GTIN.normalize(code) == expected)
        #expect(try GTIN.normalize(code[...]) == GTIN.gtin14(code))
    }

    @Test(
        "refusals say why",
        arguments: [
            ("5901234123458", "the check digit is 8 but should be 7 for 590123412345"),
            ("036000291453", "the check digit is 3 but should be 2 for 03600029145"),
            ("96385075", "the check digit is 5 but should be 4 for 9638507"),
            ("59012341234", "a GTIN has 8, 12, 13 or 14 digits; this has 11"),
            ("123456789012345", "a GTIN has 8, 12, 13 or 14 digits; this has 15"),
            ("", "a GTIN has 8, 12, 13 or 14 digits; this has 0"),
            ("59012341234X7", "a GTIN has only digits; 'X' is not one"),
            ("5901234 123457", "a GTIN has only digits; U+0020 is not one"),
            ("590123412345\u{1D}", "a GTIN has only digits; U+001D is not one"),
            ("５９０１２３４１２３４５７", "a GTIN has only digits; '５' is not one"),
            ("590123412345٧", "a GTIN has only digits; '٧' is not one"),
        ])
    func refuses(_ code: String, message: String) {
        #expect(throws: CodeError(message)) { try GTIN.normalize(code) }
    }
}
