import ScanBridgeCodes
import Testing

private let gs = "\u{1D}"

@Suite("GS1 element strings")
struct GS1ElementStringTests {
    @Test(
        "encodes as a symbol carries it: GS after variable-length data not last",
        arguments: [
            ("(01)09506000134352(10)ABC1", "0109506000134352" + "10ABC1"),
            ("(10)ABC1(01)09506000134352", "10ABC1\(gs)0109506000134352"),
            ("(01)09506000134352(17)251231(10)AB(21)XYZ", "0109506000134352" + "17251231" + "10AB\(gs)21XYZ"),
        ])
    func encodes(humanReadable: String, elementString: String) throws {
        let elements = try GS1ElementString.parseHumanReadable(humanReadable)
        #expect(GS1ElementString.encode(elements) == elementString)
        #expect(try GS1ElementString.parse(elementString) == elements)
    }

    @Test(
        "parses in order",
        arguments: [
            ("0107032069804988100329\(gs)15210525", "(01)07032069804988(10)0329(15)210525"),
            ("01095060001343521725123110ABC1", "(01)09506000134352(17)251231(10)ABC1"),
            ("01095060001343521725123110ABC1\(gs)", "(01)09506000134352(17)251231(10)ABC1"),
            ("\(gs)0109506000134352\(gs)\(gs)17251231", "(01)09506000134352(17)251231"),
            ("01095060001343523103000195", "(01)09506000134352(3103)000195"),
            ("00106141411234567897", "(00)106141411234567897"),
            ("10ABC\(gs)21XYZ\(gs)3712", "(10)ABC(21)XYZ(37)12"),
            ("2539506000134352ABC\(gs)7007251201251231", "(253)9506000134352ABC(7007)251201251231"),
            ("7007251201\(gs)8008251231235959", "(7007)251201(8008)251231235959"),
            ("3922199\(gs)3911978123", "(3922)199(3911)978123"),
            ("9112345678901234567890123456789012345678901234567890", "(91)12345678901234567890123456789012345678901234567890"),
        ])
    func parses(_ text: String, expected: String) throws {
        let elements = try GS1ElementString.parse(text)
        #expect(elements.map(\.description).joined() == expected)
        #expect(try GS1ElementString.parse(text[...]) == elements)
    }

    @Test(
        "refusals name the AI and the problem",
        arguments: [
            ("0109506000134352\(gs)3106000195", "unknown GS1 Application Identifier (3106)"),
            ("3812345", "no GS1 Application Identifier starts with 38"),
            ("0109506000134352ab", "a GS1 Application Identifier has only digits; 'a' is not one"),
            ("3A03000195", "a GS1 Application Identifier has only digits; 'A' is not one"),
            ("01095060001343523", "the GS1 data ends inside an Application Identifier: 3"),
            ("0109506000134352310", "the GS1 data ends inside an Application Identifier: 310"),
            ("01", "(01) needs 14 digits; this has 0"),
            ("010950600013435", "(01) needs 14 digits; this has 13"),
            ("01095060001343\(gs)52", "(01) needs 14 digits; this has 12"),
            ("0109506000134353", "(01): the check digit is 3 but should be 2 for 0950600013435"),
            ("01095060001343A2", "(01) takes only digits; 'A' is not one"),
            ("10123456789012345678901", "(10) needs 1 to 20 characters; this has 21"),
            ("10\(gs)17251231", "(10) needs 1 to 20 characters; this has 0"),
            ("10AB#1", "(10) cannot hold '#'; GS1 allows letters, digits and !\"%&'()*+,-./:;<=>?_"),
            ("17251301", "(17): the month is 13; months are 01 to 12"),
            ("0109506000134352172512321012", "(17): the day is 32; days are 00 to 31"),
            ("1725120", "(17) needs 6 digits; this has 5"),
            ("17251\(gs)231", "(17) needs 6 digits; this has 3"),
            ("70072512011", "(7007) has 7 characters, which do not fit its format N6[+N6]"),
            ("2531234", "(253) needs 13 to 30 characters; this has 4"),
            ("", "the GS1 data is empty"),
            ("\(gs)\(gs)", "the GS1 data is empty"),
        ])
    func refuses(_ text: String, message: String) {
        #expect(throws: CodeError(message)) { try GS1ElementString.parse(text) }
    }

    @Test(
        "AIM symbology identifiers",
        arguments: [
            ("]C10109506000134352", "]C1", "0109506000134352"),
            ("]d2010950600013435210ABC", "]d2", "010950600013435210ABC"),
            ("]Q1https://example.com", "]Q1", "https://example.com"),
            ("]E05901234123457", "]E0", "5901234123457"),
            ("]e0", "]e0", ""),
            ("0109506000134352", nil, "0109506000134352"),
            ("]C", nil, "]C"),
            ("]1A0101", nil, "]1A0101"),
            ("]C-01", nil, "]C-01"),
            ("", nil, ""),
        ] as [(String, String?, String)])
    func symbologyIdentifier(_ text: String, aim: String?, body: String) {
        let result = GS1ElementString.strippingSymbologyIdentifier(text)
        #expect(result.aim == aim)
        #expect(result.body == body)
    }

    @Test(
        "GS1 symbology identifiers",
        arguments: [
            ("]C1", true), ("]d2", true), ("]Q3", true), ("]e0", true), ("]J1", true),
            ("]C0", false), ("]d1", false), ("]Q1", false), ("]E0", false), ("]c1", false), ("", false),
        ])
    func isGS1(_ aim: String, expected: Bool) {
        #expect(GS1ElementString.isGS1(aim: aim) == expected)
        #expect(!GS1ElementString.isGS1(aim: nil))
    }

    @Test("dictionary keeps the first value of a repeated AI")
    func dictionary() {
        let elements = [
            GS1Element(ai: "01", value: "09506000134352"), GS1Element(ai: "10", value: "A"),
            GS1Element(ai: "10", value: "B"),
        ]
        #expect(GS1ElementString.dictionary(elements) == ["01": "09506000134352", "10": "A"])
        #expect(GS1ElementString.dictionary([]).isEmpty)
        #expect(elements[0].description == "(01)09506000134352")
        #expect(elements[0].identifier?.title == "GTIN")
    }

    @Test(
        "human-readable text",
        arguments: [
            ("(01)09506000134352(17)251231(10)ABC1", "(01)09506000134352(17)251231(10)ABC1"),
            (" (01) 09506000134352 (10) AB(5)  ", "(01)09506000134352(10)AB(5)"),
            ("(10)A(B)C(21)(1)", "(10)A(B)C(21)(1)"),
            ("(3103)000195", "(3103)000195"),
        ])
    func humanReadable(_ text: String, expected: String) throws {
        #expect(try GS1ElementString.parseHumanReadable(text).map(\.description).joined() == expected)
    }

    @Test(
        "human-readable refusals",
        arguments: [
            ("0109506000134352", "human-readable GS1 data puts each AI in parentheses, e.g. (01)…; it does not at '01095060'"),
            ("(3106)000195", "unknown GS1 Application Identifier (3106)"),
            ("(01)0950600013435", "(01) needs 14 digits; this has 13"),
            ("(01)09506000134353", "(01): the check digit is 3 but should be 2 for 0950600013435"),
            ("(17)251231(10)", "(10) needs 1 to 20 characters; this has 0"),
            ("(01", "human-readable GS1 data puts each AI in parentheses, e.g. (01)…; it does not at '(01'"),
            ("  ", "the GS1 data is empty"),
        ])
    func humanReadableRefuses(_ text: String, message: String) {
        #expect(throws: CodeError(message)) { try GS1ElementString.parseHumanReadable(text) }
    }
}
