import ScanBridgeCodes
import Testing

@Suite("Variable-measure layouts")
struct VariableMeasureLayoutTests {
    typealias Layout = VariableMeasure.Layout
    typealias Region = VariableMeasure.Region

    @Test("a layout from its parts is the layout of the same pattern")
    func partsMakeThePattern() throws {
        let us = try Layout(itemDigits: 5, priceCheckDigit: true, valueDigits: 4, measure: .price, decimals: 2)
        #expect(us == Layout("PPPPPPPCVVVV", .price, decimals: 2))
        let nordic = try Layout(itemDigits: 6, priceCheckDigit: false, valueDigits: 4, measure: .weight, decimals: 1)
        #expect(nordic == Layout("PPPPPPPPVVVV", .weight, decimals: 1))
        #expect(nordic.itemDigits == 6 && nordic.valueDigits == 4 && !nordic.hasPriceCheckDigit)
    }

    @Test(
        "a layout that does not fit is refused, saying what to change",
        arguments: [
            (5, true, 5, Layout.Measure.price, 2, "make 13; they must make 12"),
            (5, false, 4, .price, 2, "make 11; they must make 12"),
            (0, false, 10, .price, 2, "the item reference has 1 to 9 digits after the prefix; it has 0"),
            (Int.max, false, 5, .price, 2, "the item reference has 1 to 9 digits"),  // no overflow
            (5, false, Int.max, .weight, 3, "a weight has 1 to 10 digits"),
            (6, true, 3, .price, 2, "a price check digit is defined over 4 or 5 digits"),
            (3, false, 11, .weight, 3, "a weight has 1 to 10 digits"),
            (5, false, 5, .price, 4, "a price has 0 to 3 decimals (no currency has more than 3)"),
            (5, false, 5, .weight, nil, "a weight needs its decimals"),
            (5, false, 5, .weight, 4, "a weight has 0 to 3 decimals (weights are held in grams)"),
            (5, false, 5, .weight, -1, "a weight has 0 to 3 decimals"),
        ] as [(Int, Bool, Int, Layout.Measure, Int?, String)])
    func refused(item: Int, check: Bool, value: Int, measure: Layout.Measure, decimals: Int?, says: String) {
        let error = #expect(throws: CodeError.self) {
            try Layout(itemDigits: item, priceCheckDigit: check, valueDigits: value, measure: measure, decimals: decimals)
        }
        #expect(error?.message.contains(says) == true, "\(error?.message ?? "")")
    }

    @Test("an embedded price keeps the decimals its layout gives it, none for minor units")
    func decimalsKept() throws {
        // SE 21 and 22 (biip's Swedish rules): one and no decimals.
        let one = Region(code: "XX", layouts: ["21": Layout("PPPPPPPPVVVV", .price, decimals: 1)])
        #expect(try VariableMeasure.parse("2112345612348", region: one)?.value == .price(digits: 1234, decimals: 1))
        let none = Region(code: "XX", layouts: ["21": Layout("PPPPPPPPVVVV", .price, decimals: 0)])
        #expect(try VariableMeasure.parse("2112345612348", region: none)?.value == .price(digits: 1234, decimals: 0))
        let minor = Region(code: "XX", layouts: ["21": Layout("PPPPPPPPVVVV", .price)])
        #expect(try VariableMeasure.parse("2112345612348", region: minor)?.value == .price(digits: 1234, decimals: nil))
    }

    @Test("configured layouts extend the region, replacing its layout of their prefixes, or replace it")
    func extendOrReplace() throws {
        let fivePrice = Layout("PPPPPPPVVVVV", .price, decimals: 2)
        let extended = Region.us.with(["02": fivePrice, "25": fivePrice], replacing: false)
        #expect(extended.code == "US")
        #expect(extended.layouts == ["02": fivePrice, "25": fivePrice])
        // 0212345004999: UPC-A 2 12345 00499 9, a 5-digit price with no price check digit.
        #expect(try VariableMeasure.parse("0212345004999", region: extended)?.value == .price(digits: 499, decimals: 2))
        let kept = Region.gb.with(["25": fivePrice], replacing: false)
        #expect(kept.layouts.keys.sorted() == ["20", "25"])
        let replaced = Region.gb.with(["25": fivePrice], replacing: true)
        #expect(replaced.layouts.keys.sorted() == ["25"])
        #expect(try VariableMeasure.parse("2011122912346", region: replaced) == nil)
    }

    @Test("the restricted-circulation prefixes are 02 and 20 to 29")
    func restrictedPrefixes() {
        #expect(Region.restrictedPrefixes == ["02", "20", "21", "22", "23", "24", "25", "26", "27", "28", "29"])
        for region in Region.all {
            #expect(Set(region.layouts.keys).isSubset(of: Region.restrictedPrefixes), "\(region.code)")
        }
    }
}

@Suite("Trade item codes")
struct TradeItemCodeTests {
    @Test(
        "a UPC-A of number system 2 is an in-store price in the US, a GTIN elsewhere",
        arguments: [
            ("212345804995", VariableMeasure.Region.us, "00212345000007", Int64?.some(499)),
            ("212345804995", .gb, "00212345804995", nil),
            ("036000291452", .us, "00036000291452", nil),
        ])
    func upcA(_ code: String, region: VariableMeasure.Region, gtin: String, cents: Int64?) throws {
        let read = try #require(try TradeItemCode.read(digits: Substring(code), symbology: "upc-a", region: region))
        #expect(read.gtin == gtin)
        if let cents {
            let measure = VariableMeasure(itemCode: "0212345000007", value: .price(digits: cents, decimals: nil))
            #expect(read == .variableMeasure(measure, gtin: gtin))
        } else {
            #expect(read == .gtin(gtin))
        }
    }

    @Test("no GTIN shape is nil; a wrong check digit throws")
    func shapes() throws {
        #expect(try TradeItemCode.read(digits: "12345", symbology: nil, region: .gb) == nil)
        #expect(try TradeItemCode.read(digits: "04252614", symbology: "upc-e", region: .gb) == .gtin("00042100005264"))
        #expect(throws: CodeError.self) { try TradeItemCode.read(digits: "5901234123458", symbology: nil, region: .gb) }
    }
}
