import Foundation
import ScanBridgeCodes
import ScanBridgeCore
import ScanBridgeModel
import Testing

/// What the normalizer works out once for handlers outside the daemon: `gtin` and `embedded`.
@Suite("Normalizer trade items")
struct NormalizerTradeItemTests {
    func normalize(
        _ text: String, symbology: String? = nil, aim: String? = nil, kind: DeviceKind = .barcode,
        catalog: CatalogSettings = CatalogSettings()
    ) throws -> ScanEvent {
        try Normalizer(catalog: catalog).normalize(
            RawRead(
                device: "mock:barcode-1", driver: "mock", kind: kind, text: text, symbology: symbology, aim: aim,
                time: Date(timeIntervalSince1970: 1_800_000_000)))
    }

    @Test(
        "a GTIN-like code carries its GTIN-14 and nothing embedded",
        arguments: [
            ("5901234123457", nil, "05901234123457"),  // EAN-13, inferred
            ("036000291452", "upc-a", "00036000291452"),
            ("96385074", nil, "00000096385074"),  // EAN-8, inferred
            ("04252614", "upc-e", "00042100005264"),
            ("15901234123454", "itf", "15901234123454"),
            ("15901234123454", nil, "15901234123454"),  // 14 digits, symbology unknown
        ] as [(String, String?, String)])
    func gtin(_ text: String, symbology: String?, gtin: String) throws {
        let event = try normalize(text, symbology: symbology)
        #expect(event.gtin == gtin)
        #expect(event.embedded == nil)
    }

    @Test("GS1 content carries the GTIN of its AI 01")
    func gs1() throws {
        let event = try normalize("0109506000134352\u{1D}17251231", symbology: "gs1-128")
        #expect(event.gtin == "09506000134352")
        #expect(event.embedded == nil)
    }

    @Test(
        "an in-store barcode carries its item's GTIN and the embedded price or weight",
        arguments: [
            // GB 20, £12.34 (biip's example).
            ("2011122912346", CatalogSettings(), "02011122000005", ["price": "12.34", "currency": "GBP"]),
            // DE 28, 1.250 kg.
            (
                "2812347012503", CatalogSettings(currency: "EUR", region: .de), "02812340000002",
                .object(["weightKg": .double(1.25)])
            ),
            // US: UPC-A 2 12345 8 0499 5, $4.99.
            (
                "212345804995", CatalogSettings(currency: "USD", region: .us), "00212345000007",
                ["price": "4.99", "currency": "USD"]
            ),
            // SE 21: one decimal, 123.4 kr.
            (
                "2112345612348", CatalogSettings(currency: "SEK", region: .se), "02112345600000",
                ["price": "123.40", "currency": "SEK"]
            ),
        ] as [(String, CatalogSettings, String, JSONValue)])
    func variableMeasure(_ text: String, catalog: CatalogSettings, gtin: String, embedded: JSONValue) throws {
        let event = try normalize(text, catalog: catalog)
        #expect(event.gtin == gtin)
        #expect(event.embedded == embedded)
    }

    @Test(
        "no GTIN or embedded value where none applies",
        arguments: [
            ("5901234123457", "code-128"),  // a label symbology: the digits are a SKU
            ("SKU-001", nil),
            ("5901234123458", "ean-13"),  // a wrong check digit: the lookup says why
            ("2011122812349", "ean-13"),  // a wrong price check digit in GB
            ("https://example.com/a", "qr"),
            ("12345", nil),
        ] as [(String, String?)])
    func absent(_ text: String, symbology: String?) throws {
        let event = try normalize(text, symbology: symbology)
        #expect(event.gtin == nil)
        #expect(event.embedded == nil)
        let keys = try #require(JSONValue(parsing: event.json()).objectValue).keys
        #expect(!keys.contains("gtin") && !keys.contains("embedded"))
    }

    @Test("a region's own prefixes decide: a GB price barcode is a plain GTIN in Germany")
    func regionDecides() throws {
        let event = try normalize("2011122912346", catalog: CatalogSettings(region: .de))
        #expect(event.gtin == "02011122912346")
        #expect(event.embedded == nil)
    }

    @Test("an NFC tap carries neither")
    func nfc() throws {
        let event = try Normalizer().normalize(
            RawRead(device: "mock:nfc-1", driver: "mock", kind: .nfc, text: "5901234123457", uid: [4, 1, 2, 3, 4, 5, 6]))
        #expect(event.gtin == nil && event.embedded == nil)
    }

    @Test("the fields survive the wire and decoding")
    func wire() throws {
        let event = try normalize("2812347012503", catalog: CatalogSettings(currency: "EUR", region: .de))
        let object = try JSONValue(parsing: event.json())
        #expect(object["gtin"] == "02812340000002")
        #expect(object["embedded"] == .object(["weightKg": .double(1.25)]))
        #expect(try ScanEvent(wire: object) == event)
        #expect(try JSONDecoder().decode(ScanEvent.self, from: JSONEncoder().encode(event)) == event)
    }

    @Test("an embedded member that is not an object is refused on decoding")
    func badEmbedded() {
        let text =
            #"{"seq":3,"id":"b","time":"2026-11-21T09:40:00.123Z","device":"d","driver":"mock","kind":"barcode","symbology":"ean-13","text":"x","embedded":"3.50"}"#
        #expect(throws: (any Error).self) { try JSONDecoder().decode(ScanEvent.self, from: Data(text.utf8)) }
    }
}
