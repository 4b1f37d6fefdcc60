import ScanBridgeCodes
import Testing

@Suite("Variable measure")
struct VariableMeasureTests {
    typealias Region = VariableMeasure.Region

    @Test(
        "price check digits (GS1 §7.9.3, §7.9.4 vectors)",
        arguments: [
            ("2875", 9), ("1234", 9), ("0000", 0), ("14685", 6), ("00000", 0), ("01499", 3), ("01250", 7),
        ])
    func priceCheckDigit(_ value: String, expected: Int) {
        let digit = value.count == 4 ? PriceCheckDigit.fourDigit(value) : PriceCheckDigit.fiveDigit(value)
        #expect(digit == expected)
    }

    @Test("price check digits need exactly 4 or 5 ASCII digits")
    func priceCheckDigitShape() {
        #expect(PriceCheckDigit.fourDigit("123") == nil)
        #expect(PriceCheckDigit.fourDigit("12345") == nil)
        #expect(PriceCheckDigit.fourDigit("12a4") == nil)
        #expect(PriceCheckDigit.fiveDigit("1234") == nil)
        #expect(PriceCheckDigit.fiveDigit("1234５") == nil)
    }

    @Test("a price check digit catches every single wrong digit")
    func priceCheckDigitCatchesSubstitutions() {
        for length in [4, 5] {
            let check = { (value: String) in
                length == 4 ? PriceCheckDigit.fourDigit(value) : PriceCheckDigit.fiveDigit(value)
            }
            for number in stride(from: 0, to: length == 4 ? 10_000 : 100_000, by: length == 4 ? 7 : 97) {
                let value = Array(String(repeating: "0", count: length - String(number).count) + String(number))
                let original = check(String(value))
                for position in 0..<length {
                    for digit in "0123456789" where digit != value[position] {
                        var changed = value
                        changed[position] = digit
                        #expect(check(String(changed)) != original, "\(String(value)) → \(String(changed))")
                    }
                }
            }
        }
    }

    @Test(
        "labels in each region",
        arguments: [
            // GB: 20 PPPPPPPCVVVV, pence (minor units). Item code by hand: 201112200000, weights 3,1,… from the
            // right give 2+6+1+3+1+0+2 = 15, so its check digit is 5.
            ("2011122912346", Region.gb, "2011122000005", VariableMeasure.Value.price(digits: 1234, decimals: nil)),
            ("2212343014998", .de, "2212340000000", .price(digits: 1499, decimals: nil)),  // DE 22: €14.99
            ("2812347012503", .de, "2812340000002", .weight(grams: 1250)),  // DE 28: 1.250 kg
            ("2012345612341", .se, "2012345600003", .price(digits: 1234, decimals: nil)),  // SE 20: 12.34
            ("2112345612348", .se, "2112345600000", .price(digits: 1234, decimals: 1)),  // SE 21: 123.4
            ("2212345612345", .se, "2212345600007", .price(digits: 1234, decimals: 0)),  // SE 22: 1234
            ("2312345607508", .se, "2312345600004", .weight(grams: 750)),  // SE 23: 0.750 kg
            ("2412345607505", .se, "2412345600001", .weight(grams: 7500)),  // SE 24: 7.50 kg
            ("2512345607502", .se, "2512345600008", .weight(grams: 75000)),  // SE 25: 75.0 kg
            ("2312345607508", .no, "2312345600004", .weight(grams: 750)),  // NO as SE
            ("2212345612345", .no, "2212345600007", .price(digits: 1234, decimals: 0)),
            ("2112340019951", .dk, "2112340000003", .price(digits: 1995, decimals: nil)),  // DK 21: 19.95
            ("2712345012508", .dk, "2712345000000", .weight(grams: 1250)),  // DK 27: 1.250 kg
            // The codes below were built from their layouts, their price check digits by GS1
            // §7.9.3 (the vectors above) and their check digits by §7.9.1, and checked by an
            // independent calculation: no published label of these regions was at hand.
            // US/CA: UPC-A 2 12345 8 0499 5 read as EAN-13 02…: $4.99 with price check digit 8.
            ("0212345804995", .us, "0212345000007", .price(digits: 499, decimals: nil)),
            ("0204711312500", .ca, "0204711000001", .price(digits: 1250, decimals: nil)),  // CA as US: $12.50
            ("2112345012506", .fr, "2112345000008", .price(digits: 1250, decimals: nil)),  // FR 21: €12.50
            ("2612345004551", .fr, "2612345000003", .weight(grams: 455)),  // FR 26: 0.455 kg
            ("2212345003501", .nl, "2212345000005", .price(digits: 350, decimals: nil)),  // NL 22: €3.50
            ("2812345004555", .nl, "2812345000007", .weight(grams: 455)),  // NL 28: 0.455 kg
        ])
    func parses(_ code: String, region: Region, itemCode: String, value: VariableMeasure.Value) throws {
        let measure = try #require(try VariableMeasure.parse(code, region: region))
        #expect(measure == VariableMeasure(itemCode: itemCode, value: value))
        #expect(GTIN.hasValidCheckDigit(measure.itemCode))
        // The item code is a fixed point: parsing it again gives itself with value zero.
        let zero = try #require(try VariableMeasure.parse(measure.itemCode, region: region))
        #expect(zero.itemCode == measure.itemCode)
    }

    @Test("labels of one item with different prices share the item code")
    func sameItem() throws {
        let a = try #require(try VariableMeasure.parse("2011122912346", region: .gb))
        let b = try #require(try VariableMeasure.parse("2011122928750", region: .gb))
        #expect(a.itemCode == b.itemCode)
        #expect(b.value == .price(digits: 2875, decimals: nil))
    }

    @Test(
        "not a variable-measure code in the region",
        arguments: [
            ("2012345678903", Region.de),  // 20 is a price in GB and SE, not in DE
            ("2212343014998", .gb),  // GB reads only 20
            ("2612345612341", .se),
            ("5901234123457", .gb),  // an ordinary GTIN-13
            ("0201234567899", .gb),  // 02 is read in US and CA only
            ("0212345804995", .de),
            ("2512345003502", .nl),  // NL reads 22, 23, 28, 29
            ("201112291234", .gb),  // 12 digits
            ("20111229123466", .gb),  // 14 digits
            ("20111229123a6", .gb),
            ("", .gb),
        ])
    func notVariable(_ code: String, region: Region) throws {
        #expect(try VariableMeasure.parse(code, region: region) == nil)
    }

    @Test(
        "wrong check digits throw",
        arguments: [
            ("2011122812349", Region.gb, "the price check digit is 8 but should be 9 for the price 1234 in 2011122812349"),
            ("2212344014997", .de, "the price check digit is 4 but should be 3 for the price 01499 in 2212344014997"),
            ("2812346012504", .de, "the price check digit is 6 but should be 7 for the weight 01250 in 2812346012504"),
            ("2011122912347", .gb, "the check digit is 7 but should be 6 for 201112291234"),
            ("2312345607509", .se, "the check digit is 9 but should be 8 for 231234560750"),
            ("0212345704998", .us, "the price check digit is 7 but should be 8 for the price 0499 in 0212345704998"),
        ])
    func wrongCheckDigits(_ code: String, region: Region, message: String) {
        #expect(throws: CodeError(message)) { try VariableMeasure.parse(code, region: region) }
    }

    @Test("regions by name")
    func regionsByName() {
        #expect(Region.all.map(\.code) == ["GB", "DE", "SE", "NO", "DK", "US", "CA", "FR", "NL"])
        #expect(Region.named("gb") == .gb)
        #expect(Region.named("De") == .de)
        #expect(Region.named("us") == .us)
        #expect(Region.named("IT") == nil)
        #expect(Region.named("") == nil)
    }

    @Test("a custom region")
    func customRegion() throws {
        let region = Region(code: "XX", layouts: ["29": .init("PPPPPPPPVVVV", .weight, decimals: 0)])
        let measure = try #require(try VariableMeasure.parse("2912345600129", region: region))
        #expect(measure.value == .weight(grams: 12000))
    }
}
