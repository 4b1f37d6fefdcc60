import ScanBridgeCodes
import Testing

@Suite("UPC-E")
struct UPCETests {
    @Test(
        "expansion by the last data digit (GS1 §5.2.2.4.2)",
        arguments: [
            ("01234565", "012345000065"),  // d6 = 5…9: N d1…d5 0000 d6
            ("04252614", "042100005264"),  // d6 = 0…2: N d1 d2 d6 0000 d3 d4 d5
            ("01203408", "012000000348"),  // d6 = 0
            ("01234531", "012300000451"),  // d6 = 3: N d1 d2 d3 00000 d4 d5
            ("01234543", "012340000053"),  // d6 = 4: N d1 d2 d3 d4 00000 d5
            ("01234596", "012345000096"),  // d6 = 9
            ("11234562", "112345000062"),  // number system 1
        ])
    func expands(_ code: String, upcA: String) throws {
        #expect(try UPCE.expand(code) == upcA)
        #expect(try UPCE.expand(code.prefix(7)) == upcA, "without the check digit")
        if code.hasPrefix("0") {
            #expect(try UPCE.expand(code.dropFirst().prefix(6)) == upcA, "without number system and check digit")
        }
        #expect(GTIN.hasValidCheckDigit(upcA))
    }

    @Test(
        "refusals say why",
        arguments: [
            ("01234564", "the check digit is 4 but should be 5 for 0123456 (UPC-A 01234500006)"),
            ("04252610", "the check digit is 0 but should be 4 for 0425261 (UPC-A 04210000526)"),
            ("21234565", "a UPC-E code starts with number system 0 or 1; this starts with 2"),
            ("9123456", "a UPC-E code starts with number system 0 or 1; this starts with 9"),
            ("12345", "a UPC-E code has 6, 7 or 8 digits; this has 5"),
            ("012345655", "a UPC-E code has 6, 7 or 8 digits; this has 9"),
            ("", "a UPC-E code has 6, 7 or 8 digits; this has 0"),
            ("0123A565", "a UPC-E code has only digits; 'A' is not one"),
        ])
    func refuses(_ code: String, message: String) {
        #expect(throws: CodeError(message)) { try UPCE.expand(code) }
    }
}
