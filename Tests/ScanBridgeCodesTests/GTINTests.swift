import ScanBridgeCodes
import Testing

@Suite("GTIN")
struct GTINTests {
    /// Valid GS1 codes (GS1 General Specifications examples and well-known products).
    static let valid = [
        "5901234123457",  // EAN-13
        "4006381333931",  // EAN-13
        "036000291452",  // UPC-A
        "96385074",  // EAN-8
        "09506000134352",  // GTIN-14
        "00012345600012",  // GTIN-14
        "0000000000000",  // all zeros: check digit 0
    ]

    @Test("valid check digits", arguments: valid)
    func validCheckDigits(_ code: String) {
        #expect(GTIN.hasValidCheckDigit(code))
        #expect(GTIN.checkDigit(forData: code.dropLast()) == code.last?.wholeNumberValue)
    }

    @Test(
        "wrong check digits",
        arguments: [
            "5901234123458", "4006381333932", "036000291453", "96385075", "09506000134353", "5901234123450",
        ])
    func wrongCheckDigits(_ code: String) {
        #expect(!GTIN.hasValidCheckDigit(code))
        #expect(GTIN.gtin14(code) == nil)
    }

    @Test(
        "check digit of data digits",
        arguments: [
            ("590123412345", 7), ("400638133393", 1), ("03600029145", 2), ("9638507", 4), ("0950600013435", 2),
            ("", 0),
        ])
    func checkDigitForData(_ data: String, expected: Int) {
        #expect(GTIN.checkDigit(forData: data) == expected)
    }

    @Test("non-digits have no check digit", arguments: ["59012341234a", "590-1234", " 12", "١٢٣"])
    func nonDigitData(_ data: String) {
        #expect(GTIN.checkDigit(forData: data) == nil)
    }

    @Test(
        "codes that are not all ASCII digits are invalid",
        arguments: [
            "", "7", "590123412345a", "59012341234 7", "590123412345٧", "５９０１２３４１２３４５７", "590123412345７",
        ])
    func invalidShapes(_ code: String) {
        #expect(!GTIN.hasValidCheckDigit(code))
        #expect(GTIN.gtin14(code) == nil)
    }

    @Test(
        "GTIN-14 normalisation",
        arguments: [
            ("5901234123457", "05901234123457"),
            ("036000291452", "00036000291452"),
            ("96385074", "00000096385074"),
            ("09506000134352", "09506000134352"),
        ])
    func gtin14(_ code: String, expected: String) {
        #expect(GTIN.gtin14(code) == expected)
    }

    @Test(
        "GTIN-14 needs a GTIN length",
        arguments: [
            "09506000134353",  // 14 digits, wrong check digit
            "1234565",  // 7 digits (valid check digit, wrong length)
            "123456789012345",  // 15 digits
            "01234565",  // EAN-8 form of a valid 7-digit string: valid
        ])
    func gtin14Lengths(_ code: String) {
        let expected: String? = code == "01234565" ? "00000001234565" : nil
        #expect(GTIN.gtin14(code) == expected)
    }

    @Test("UPC-A, EAN-13 and GTIN-14 forms of one item normalise alike")
    func sameItem() {
        #expect(GTIN.gtin14("036000291452") == GTIN.gtin14("0036000291452"))
        #expect(GTIN.gtin14("0036000291452") == GTIN.gtin14("00036000291452"))
    }
}
