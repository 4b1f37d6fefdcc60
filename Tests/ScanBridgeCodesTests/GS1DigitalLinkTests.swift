import ScanBridgeCodes
import Testing

@Suite("GS1 Digital Link")
struct GS1DigitalLinkTests {
    @Test(
        "Digital Link URIs",
        arguments: [
            // GS1 Digital Link URI Syntax: any host and path prefix, qualifiers in the path, other
            // AIs in the query, percent-encoding, and the legacy names (`gtin`, `lot`, `exp`…).
            ("https://id.gs1.org/01/09506000134352/10/ABC1?17=251231", "(01)09506000134352(10)ABC1(17)251231"),
            ("https://example.com/shop/01/9506000134352?3103=000195", "(01)09506000134352(3103)000195"),
            ("https://id.gs1.org/01/96385074", "(01)00000096385074"),
            ("http://id.gs1.org/01/036000291452/", "(01)00036000291452"),
            ("HTTPS://ID.GS1.ORG/01/09506000134352#specs", "(01)09506000134352"),
            ("https://id.gs1.org/01/09506000134352/10/ABC%2F1", "(01)09506000134352(10)ABC/1"),
            (
                "https://brand.example/a/b/c/01/09506000134352/22/2A/10/ABC1/21/12345?17=251231&3103=000195",
                "(01)09506000134352(22)2A(10)ABC1(21)12345(17)251231(3103)000195"
            ),
            ("https://id.gs1.org/01/09506000134352/21/12345", "(01)09506000134352(21)12345"),
            ("https://id.gs1.org/01/09506000134352/235/TPX1", "(01)09506000134352(235)TPX1"),
            (
                "https://id.gs1.org/01/09506000134352?linkType=gs1:pip&utm_source=qr&x&17=251231&99=AB",
                "(01)09506000134352(17)251231(99)AB"
            ),
            ("https://example.com/gtin/09506000134352/lot/ABC1?exp=251231", "(01)09506000134352(10)ABC1(17)251231"),
            (
                "https://example.com/01/09506000134352?lot=ABC1&ser=9&cpv=X&gtin=9506000134352",
                "(01)09506000134352(10)ABC1(21)9(22)X"
            ),
            ("https://example.com/01/09506000134352?%31%37=251231", "(01)09506000134352(17)251231"),
            ("https://id.gs1.org/00/106141411234567897", "(00)106141411234567897"),
            ("https://id.gs1.org/414/9506000134352/254/1", "(414)9506000134352(254)1"),
            ("https://id.gs1.org/8004/0950600013AB", "(8004)0950600013AB"),
            ("https://id.gs1.org/01/2021/01/09506000134352", "(01)09506000134352"),
        ])
    func parses(_ uri: String, expected: String) throws {
        #expect(try GS1DigitalLink.parse(uri)?.map(\.description).joined() == expected)
    }

    @Test(
        "other text is not a Digital Link",
        arguments: [
            "", "0109506000134352", "01/09506000134352", "ftp://example.com/01/09506000134352",
            "mailto:a@example.com", "https:/example.com/01/09506000134352", "https:///01/09506000134352",
            "https://example.com", "https://example.com/", "https://example.com/blog/2021/01/15",
            "https://example.com/01/abc", "https://example.com/01/123456789", "https://example.com/01/09506000134352/10",
            "https://example.com/01/09506000134352/99/x", "https://example.com/01/09506000134352/21/1/10/2",
            "https://example.com/01/09506000134352/235/1/21/2", "https://example.com/?01=09506000134352",
            "https://example.com/01/%zz", "https://example.com/3103/000195",
        ])
    func notDigitalLink(_ text: String) throws {
        #expect(try GS1DigitalLink.parse(text) == nil)
    }

    @Test(
        "a malformed Digital Link throws",
        arguments: [
            ("https://id.gs1.org/01/09506000134353", "(01): the check digit is 3 but should be 2 for 0950600013435"),
            ("https://id.gs1.org/01/5901234123458", "(01): the check digit is 8 but should be 7 for 0590123412345"),
            ("https://id.gs1.org/01/09506000134352?17=251301", "(17): the month is 13; months are 01 to 12"),
            ("https://id.gs1.org/01/09506000134352?17=", "(17) needs 6 digits; this has 0"),
            ("https://id.gs1.org/01/09506000134352?exp=2512", "(17) needs 6 digits; this has 4"),
            ("https://id.gs1.org/01/09506000134352/10/ABC%2", "(10) has a malformed percent-encoding: ABC%2"),
            ("https://id.gs1.org/01/09506000134352/10/%FF", "(10) has a malformed percent-encoding: %FF"),
            (
                "https://id.gs1.org/01/09506000134352/10/AB%20C",
                "(10) cannot hold U+0020; GS1 allows letters, digits and !\"%&'()*+,-./:;<=>?_"
            ),
            ("https://id.gs1.org/01/09506000134352/10/123456789012345678901", "(10) needs 1 to 20 characters; this has 21"),
            ("https://id.gs1.org/01/09506000134352/10/A?10=B", "(10) appears twice with different values: A and B"),
            (
                "https://id.gs1.org/01/09506000134352?gtin=5901234123457",
                "(01) appears twice with different values: 09506000134352 and 05901234123457"
            ),
        ])
    func throwsWhenMalformed(_ uri: String, message: String) {
        #expect(throws: CodeError(message)) { try GS1DigitalLink.parse(uri) }
    }
}
