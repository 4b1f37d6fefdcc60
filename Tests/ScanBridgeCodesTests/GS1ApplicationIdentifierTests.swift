import Testing

@testable import ScanBridgeCodes

@Suite("GS1 Application Identifiers")
struct GS1ApplicationIdentifierTests {
    /// The AIs a POS or warehouse meets; each must be in the table.
    static let required: [String] = {
        var codes = [
            "00", "01", "02", "10", "11", "12", "13", "15", "16", "17", "20", "21", "22", "235", "240", "241",
            "242", "243", "250", "251", "253", "254", "255", "30", "37", "400", "401", "402", "403", "410", "411",
            "412", "413", "414", "415", "416", "417", "420", "421", "422", "423", "424", "425", "426", "427",
            "7001", "7002", "7003", "7006", "7007", "8001", "8002", "8003", "8004", "8005", "8006", "8007",
            "8008", "8012", "8017", "8018", "8020", "8200", "90", "91", "92", "93", "94", "95", "96", "97", "98", "99",
        ]
        // 310n–369n as GS1 assigns them (no 317–319, 338–339, 358–359), n = 0…5.
        let measures: [Int] = Array(310...316) + Array(320...337) + Array(340...357) + Array(360...369)
        for base in measures {
            codes += (0...5).map { "\(base)\($0)" }
        }
        for base in 390...393 {
            codes += (0...9).map { "\(base)\($0)" }
        }
        codes += (0...3).map { "394\($0)" }
        codes += (0...5).map { "395\($0)" }
        return codes
    }()

    @Test func requiredAIsAreKnown() {
        let missing = Self.required.filter { GS1ApplicationIdentifier.lookup($0) == nil }
        #expect(missing.isEmpty, "missing: \(missing)")
    }

    @Test("the table is consistent")
    func tableIsConsistent() {
        let all = GS1ApplicationIdentifier.all
        #expect(Set(all.map(\.code)).count == all.count, "codes are unique")
        for ai in all {
            // The length of every AI follows from its first two digits, which is what
            // makes greedy matching unambiguous.
            #expect(GS1ApplicationIdentifier.codeLength(startOf: ai.code) == ai.code.count, "\(ai.code)")
            #expect(ai.code.allSatisfy { $0.isASCII && $0.isNumber }, "\(ai.code)")
            #expect(GS1ApplicationIdentifier.lookup(prefixOf: ai.code + "123") == ai)
            #expect(!ai.title.isEmpty && ai.minLength >= 1 && ai.maxLength <= 90, "\(ai.code)")
            #expect(!ai.hasCheckDigit || ai.components.first?.characters == .digits, "\(ai.code)")
            #expect(ai.dateFormat == nil || ai.isNumeric, "\(ai.code)")
        }
    }

    @Test(
        "lookup by prefix",
        arguments: [
            ("0109506000134352", "01"), ("3103000195", "3103"), ("235ABC", "235"), ("8003", "8003"),
            ("90X", "90"), ("7007251231", "7007"), ("710ABC", "710"), ("37", "37"), ("99", "99"),
        ])
    func lookupByPrefix(_ text: String, code: String) {
        #expect(GS1ApplicationIdentifier.lookup(prefixOf: text)?.code == code)
        #expect(GS1ApplicationIdentifier.lookup(prefixOf: text[...])?.code == code)
    }

    @Test(
        "no AI at the start",
        arguments: [
            "", "0", "310", "3106000195", "3390000001", "05123", "38123", "18", "ab", "\u{1D}01", "٠١",
        ])
    func noAI(_ text: String) {
        #expect(GS1ApplicationIdentifier.lookup(prefixOf: text) == nil)
    }

    @Test("entries carry GS1's format, title, check digit, date and decimals")
    func entries() throws {
        let gtin = try #require(GS1ApplicationIdentifier.lookup("01"))
        #expect(gtin.title == "GTIN" && gtin.format == "N14")
        #expect(gtin.isFixedLength && gtin.isNumeric && gtin.hasCheckDigit && gtin.maxLength == 14)

        let lot = try #require(GS1ApplicationIdentifier.lookup("10"))
        #expect(lot.title == "BATCH/LOT" && !lot.isFixedLength && !lot.isNumeric && lot.minLength == 1 && lot.maxLength == 20)

        let expiry = try #require(GS1ApplicationIdentifier.lookup("17"))
        #expect(expiry.title == "USE BY or EXPIRY" && expiry.dateFormat == .date && !expiry.hasCheckDigit)

        let weight = try #require(GS1ApplicationIdentifier.lookup("3103"))
        #expect(weight.title == "NET WEIGHT (kg)" && weight.decimals == 3 && weight.maxLength == 6 && weight.isFixedLength)
        #expect(GS1ApplicationIdentifier.lookup("3300")?.title == "GROSS WEIGHT (kg)")
        #expect(GS1ApplicationIdentifier.lookup("3925")?.decimals == 5)

        let gdti = try #require(GS1ApplicationIdentifier.lookup("253"))
        #expect(gdti.hasCheckDigit && !gdti.isNumeric && gdti.minLength == 13 && gdti.maxLength == 30)
        #expect(gdti.components.map(\.isOptional) == [false, true])

        let harvest = try #require(GS1ApplicationIdentifier.lookup("7007"))
        #expect(harvest.dateFormat == .dateRange && harvest.minLength == 6 && harvest.maxLength == 12)

        for gln in ["410", "411", "412", "413", "414", "415", "416", "417"] {
            #expect(GS1ApplicationIdentifier.lookup(gln)?.hasCheckDigit == true, "\(gln)")
        }
        #expect(GS1ApplicationIdentifier.lookup("0")?.code == nil)
    }

    @Test(
        "validate names the AI and the problem",
        arguments: [
            ("01", "0950600013435", "(01) needs 14 digits; this has 13"),
            ("01", "09506000134353", "(01): the check digit is 3 but should be 2 for 0950600013435"),
            ("00", "106141411234567890", "(00): the check digit is 0 but should be 7 for 10614141123456789"),
            ("414", "9506000134353", "(414): the check digit is 3 but should be 2 for 950600013435"),
            ("253", "9506000134353ABC", "(253): the check digit is 3 but should be 2 for 950600013435"),
            ("01", "0950600013435A", "(01) takes only digits; 'A' is not one"),
            ("10", "", "(10) needs 1 to 20 characters; this has 0"),
            ("10", "123456789012345678901", "(10) needs 1 to 20 characters; this has 21"),
            ("10", "AB#1", "(10) cannot hold '#'; GS1 allows letters, digits and !\"%&'()*+,-./:;<=>?_"),
            ("10", "AB 1", "(10) cannot hold U+0020; GS1 allows letters, digits and !\"%&'()*+,-./:;<=>?_"),
            ("10", "ABé1", "(10) cannot hold 'é'; GS1 allows letters, digits and !\"%&'()*+,-./:;<=>?_"),
            ("8010", "AB-c", "(8010) cannot hold 'c'; it allows A-Z, digits, #, - and /"),
            ("253", "950600013435A", "(253) takes digits in characters 1 to 13; 'A' is not one"),
            ("421", "52A1234", "(421) takes digits in characters 1 to 3; 'A' is not one"),
            ("7007", "2512011", "(7007) has 7 characters, which do not fit its format N6[+N6]"),
            ("17", "251301", "(17): the month is 13; months are 01 to 12"),
            ("17", "250001", "(17): the month is 00; months are 01 to 12"),
            ("17", "251232", "(17): the day is 32; days are 00 to 31"),
            ("7007", "251201251332", "(7007): the month is 13; months are 01 to 12"),
            ("7003", "2512312460", "(7003): the hour is 24; it must be at most 23"),
            ("8008", "251231236", "(8008): the minute has only one digit"),
            ("8008", "25123123596", "(8008): the second has only one digit"),
            ("8008", "251231237000", "(8008): the minute is 70; it must be at most 59"),
        ])
    func validateRefuses(_ code: String, value: String, message: String) throws {
        let ai = try #require(GS1ApplicationIdentifier.lookup(code))
        #expect(throws: CodeError(message)) { try ai.validate(value) }
    }

    @Test(
        "validate accepts",
        arguments: [
            ("01", "09506000134352"), ("17", "251200"), ("17", "991231"), ("10", "AB(5)/-_\"%&'"), ("10", "*+,.:;<=>?!z"),
            ("253", "9506000134352"), ("253", "9506000134352ABC"), ("7007", "251201"), ("7007", "251201251231"),
            ("8008", "25123123"), ("8008", "2512312359"), ("8008", "251231235959"), ("7003", "2512312359"),
            ("8010", "AB-1/#"), ("3103", "000195"), ("3925", "123456789012345"), ("8003", "09506000134352XY"),
            ("00", "106141411234567897"), ("8006", "095060001343520102"),
        ])
    func validateAccepts(_ code: String, value: String) throws {
        let ai = try #require(GS1ApplicationIdentifier.lookup(code))
        #expect(try ai.element(value) == GS1Element(ai: code, value: value))
    }
}
