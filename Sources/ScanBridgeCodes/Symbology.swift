/// The symbology names of the wire protocol, their AIM identifiers, and inference from content.
public enum Symbology {
    /// Every barcode symbology name the protocol knows.
    public static let barcode: [String] = [
        "ean-13", "ean-8", "upc-a", "upc-e", "code-128", "gs1-128", "code-39", "code-93", "itf",
        "codabar", "databar", "qr", "data-matrix", "pdf417", "aztec", "unknown",
    ]
    /// The symbologies whose content is a GTIN by definition.
    public static let gtinCarriers: Set<String> = ["ean-13", "ean-8", "upc-a", "upc-e", "itf"]
    /// Every NFC air-interface name the protocol knows.
    public static let nfc: [String] = ["iso14443a", "iso14443b", "iso15693", "felica", "unknown"]

    /// The AIM identifier a scanner would send for a symbology with no options
    /// (ISO/IEC 15424), used when the device does not report one.
    public static func aimIdentifier(for symbology: String) -> String? {
        switch symbology {
        case "ean-13", "upc-a", "upc-e": "]E0"
        case "ean-8": "]E4"
        case "code-128": "]C0"
        case "gs1-128": "]C1"
        case "code-39": "]A0"
        case "code-93": "]G0"
        case "itf": "]I0"
        case "codabar": "]F0"
        case "databar": "]e0"
        case "qr": "]Q1"
        case "data-matrix": "]d1"
        case "pdf417": "]L0"
        case "aztec": "]z0"
        default: nil
        }
    }

    /// The symbology an AIM identifier names (`]E0` is EAN/UPC, `]C1` GS1-128…), when the
    /// identifier alone tells; nil for unknown ones.
    public static func named(aim: String) -> String? {
        guard aim.count == 3 else { return nil }
        let code = aim.dropFirst().first!
        let modifier = aim.last!
        switch code {
        case "E": return modifier == "4" ? "ean-8" : "ean-13"
        case "C": return modifier == "1" ? "gs1-128" : "code-128"
        case "A": return "code-39"
        case "G": return "code-93"
        case "I": return "itf"
        case "F": return "codabar"
        case "e": return "databar"
        case "Q": return "qr"
        case "d": return "data-matrix"
        case "L": return "pdf417"
        case "z": return "aztec"
        default: return nil
        }
    }

    /// Infers a barcode symbology from its text alone: EAN-13, EAN-8 and UPC-A are
    /// recognised by length and check digit; anything else is `unknown`.
    public static func infer(fromText text: String) -> String {
        guard text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return "unknown" }
        switch text.utf8.count {
        case 13 where GTIN.hasValidCheckDigit(text): return "ean-13"
        case 12 where GTIN.hasValidCheckDigit(text): return "upc-a"
        case 8 where GTIN.hasValidCheckDigit(text): return "ean-8"
        default: return "unknown"
        }
    }
}
