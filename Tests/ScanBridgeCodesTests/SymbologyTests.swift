import ScanBridgeCodes
import Testing

@Suite("Symbology")
struct SymbologyTests {
    @Test(
        "inference from text",
        arguments: [
            ("5901234123457", "ean-13"),
            ("4006381333931", "ean-13"),
            ("0036000291452", "ean-13"),
            ("036000291452", "upc-a"),
            ("96385074", "ean-8"),
            ("5901234123458", "unknown"),  // EAN-13 length, bad check digit
            ("036000291453", "unknown"),  // UPC-A length, bad check digit
            ("96385075", "unknown"),  // EAN-8 length, bad check digit
            ("09506000134352", "unknown"),  // GTIN-14: not a symbology of its own
            ("1234565", "unknown"),  // 7 digits
            ("59012341234a7", "unknown"),
            ("5901234 123457", "unknown"),
            ("５９０１２３４１２３４５７", "unknown"),  // full-width digits
            ("590123412345٧", "unknown"),  // Arabic-Indic check digit
            ("ORDER:ord_1001", "unknown"),
            ("https://example.com/orders/1", "unknown"),
            ("", "unknown"),
        ])
    func infer(_ text: String, expected: String) {
        #expect(Symbology.infer(fromText: text) == expected)
    }

    @Test(
        "AIM identifiers",
        arguments: [
            ("ean-13", "]E0"), ("upc-a", "]E0"), ("upc-e", "]E0"), ("ean-8", "]E4"),
            ("code-128", "]C0"), ("gs1-128", "]C1"), ("code-39", "]A0"), ("code-93", "]G0"),
            ("itf", "]I0"), ("codabar", "]F0"), ("databar", "]e0"), ("qr", "]Q1"),
            ("data-matrix", "]d1"), ("pdf417", "]L0"), ("aztec", "]z0"),
        ])
    func aimIdentifier(_ symbology: String, aim: String) {
        #expect(Symbology.aimIdentifier(for: symbology) == aim)
    }

    @Test("no AIM identifier for unknown or NFC names", arguments: ["unknown", "iso14443a", "felica", "EAN-13", ""])
    func noAimIdentifier(_ symbology: String) {
        #expect(Symbology.aimIdentifier(for: symbology) == nil)
    }

    @Test("every barcode symbology but unknown has an AIM identifier")
    func everyBarcodeHasAim() {
        for name in Symbology.barcode where name != "unknown" {
            #expect(Symbology.aimIdentifier(for: name) != nil, "\(name)")
        }
        #expect(Set(Symbology.barcode).count == Symbology.barcode.count)
        #expect(Symbology.nfc == ["iso14443a", "iso14443b", "iso15693", "felica", "unknown"])
    }

    @Test("inferred symbologies are protocol names")
    func inferredNamesAreKnown() {
        for text in ["5901234123457", "036000291452", "96385074", "x"] {
            #expect(Symbology.barcode.contains(Symbology.infer(fromText: text)))
        }
    }
}
