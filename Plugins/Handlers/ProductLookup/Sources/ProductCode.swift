package import ScanBridgeCodes

/// How a scanned or typed text names a product, decided from its content and symbology.
package enum ProductCode: Sendable, Hashable {
    /// A GTIN, as GTIN-14: every EAN/UPC/ITF-14 form, a GS1 element string's AI 01, a Digital Link.
    case gtin(String)
    /// An in-store price or weight barcode: the item's GTIN-14 (value digits zeroed) and the value.
    case variableMeasure(VariableMeasure, gtin: String)
    /// A catalog label that is not a GTIN (Code 128, Code 39): a SKU or other barcode text.
    case label(String)
    /// Meant as a product code but malformed (a wrong check digit…): the reason, for a person.
    case invalid(String)

    /// Symbologies that carry free text: numbers in them are labels, never GTINs.
    static let labelSymbologies: Set<String> = ["code-128", "code-39", "code-93", "codabar"]
    /// Two-dimensional symbologies: a product code only as GS1 (an element string or a Digital Link).
    static let matrixSymbologies: Set<String> = ["qr", "data-matrix", "aztec", "pdf417"]

    /// The product code `text` is, or nil when it names no product (a plain QR code, an SSCC…).
    /// `symbology` is nil for typed codes (`products.lookup`).
    package static func classify(
        text: String, symbology: String?, aim: String?, region: VariableMeasure.Region
    ) -> ProductCode? {
        let (prefix, body) = GS1ElementString.strippingSymbologyIdentifier(text)
        if GS1ElementString.isGS1(aim: prefix ?? aim, symbology: symbology) {
            return gs1(elements: { () throws(CodeError) in try GS1ElementString.parse(body) })
        }
        if body.hasPrefix("(0"), let elements = try? GS1ElementString.parseHumanReadable(body) {
            return gs1(elements: { () throws(CodeError) in elements })
        }
        do {
            if body.utf8.contains(UInt8(ascii: ":")), let elements = try GS1DigitalLink.parse(String(body)) {
                return gs1(elements: { () throws(CodeError) in elements })
            }
        } catch {
            return .invalid(error.message)
        }
        if let symbology, matrixSymbologies.contains(symbology) { return nil }
        let digitsOnly = body.utf8.allSatisfy { (0x30...0x39).contains($0) }
        if let symbology, labelSymbologies.contains(symbology) { return label(body) }
        if digitsOnly {
            do throws(CodeError) {
                switch try TradeItemCode.read(digits: body, symbology: symbology, region: region) {
                case .gtin(let gtin)?: return .gtin(gtin)
                case .variableMeasure(let measure, let gtin)?: return .variableMeasure(measure, gtin: gtin)
                case nil: break
                }
            } catch {
                return .invalid(error.message)
            }
        }
        if let symbology, Symbology.gtinCarriers.contains(symbology) {
            return .invalid("'\(body)' is not a valid \(symbology) code: it has \(body.count) characters")
        }
        return label(body)
    }

    private static func gs1(elements parse: () throws(CodeError) -> [GS1Element]) -> ProductCode? {
        do throws(CodeError) {
            guard let gtin = try parse().first(where: { $0.ai == "01" })?.value else { return nil }
            return .gtin(gtin)
        } catch {
            return .invalid(error.message)
        }
    }

    /// Printable text up to 64 characters is a label; anything else names no product.
    private static func label(_ text: Substring) -> ProductCode? {
        // Printable ASCII, the usual label, is checked byte by byte; other text by its scalars.
        let printableASCII = text.utf8.allSatisfy { (0x20..<0x7F).contains($0) }
        guard (1...64).contains(printableASCII ? text.utf8.count : text.count),
            printableASCII || text.unicodeScalars.allSatisfy({ !$0.properties.generalCategory.isControl })
        else { return nil }
        return .label(String(text))
    }
}

extension Unicode.GeneralCategory {
    fileprivate var isControl: Bool { self == .control || self == .format }
}
