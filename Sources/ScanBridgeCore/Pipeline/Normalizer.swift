import Foundation
import ScanBridgeCodes
package import ScanBridgeModel

/// Turns what a driver read into one normalised `ScanEvent` (not yet resolved or journaled).
///
/// Every driver's reads go through here, so symbology inference, AIM identifiers, UID
/// formats and raw-byte handling are the same whatever the transport.
package struct Normalizer: Sendable {
    /// Longest text accepted from one read; a QR code holds at most 7,089 characters.
    package var maxTextBytes: Int
    /// The in-store barcode layouts, and the currency of the prices they embed.
    package var catalog: CatalogSettings

    package init(maxTextBytes: Int = 8192, catalog: CatalogSettings = CatalogSettings()) {
        self.maxTextBytes = maxTextBytes
        self.catalog = catalog
    }

    package func normalize(_ read: RawRead) throws(ScanBridgeError) -> ScanEvent {
        switch read.kind {
        case .nfc: try normalizeCard(read)
        case .barcode, .qr: try normalizeCode(read)
        }
    }

    private func normalizeCard(_ read: RawRead) throws(ScanBridgeError) -> ScanEvent {
        guard let bytes = read.uid else {
            throw .invalidParams("an NFC read needs the card's uid", field: "uid")
        }
        let uid: NFCUID
        do {
            uid = try NFCUID(bytes: bytes)
        } catch {
            throw .invalidParams(error.message, field: "uid")
        }
        let symbology = try validated(read.symbology, in: Symbology.nfc) ?? uid.likelySymbology
        // The text of a tap is its UID unless the reader said more (a text record, say).
        let text = read.text.flatMap { $0.isEmpty ? nil : $0 } ?? uid.hex
        try checkLength(text)
        return ScanEvent(
            id: Self.newID(), time: read.time, device: read.device, driver: read.driver, kind: read.kind,
            symbology: symbology, aim: read.aim, text: text, uid: uid.hex, uidDisplay: uid.display,
            atr: read.atr.map { Hex.encode($0) }, cardType: read.cardType, ndef: read.ndef)
    }

    private func normalizeCode(_ read: RawRead) throws(ScanBridgeError) -> ScanEvent {
        var text: String
        var raw: String?
        if let given = read.text {
            text = given
            if let bytes = read.bytes, bytes != Array(given.utf8) { raw = Data(bytes).base64EncodedString() }
        } else if let bytes = read.bytes {
            // Keep what decodes as text; the exact bytes travel in `raw` when they are not UTF-8.
            text = String(decoding: bytes, as: UTF8.self)
            if String(validating: bytes, as: UTF8.self) == nil { raw = Data(bytes).base64EncodedString() }
        } else {
            throw .invalidParams("a \(read.kind.rawValue) read needs its text", field: "text")
        }
        // A scanner set to transmit AIM identifiers prefixes the data with one (`]C1…`): it
        // says what the code is, and is no part of the content.
        var reportedAIM = read.aim
        if reportedAIM == nil, read.kind == .barcode,
            case (let aim?, let body) = GS1ElementString.strippingSymbologyIdentifier(text), !body.isEmpty
        {
            reportedAIM = aim
            text = String(body)
            if raw == nil, let bytes = read.bytes ?? read.text.map({ Array($0.utf8) }) { raw = Data(bytes).base64EncodedString() }
        }
        guard !text.isEmpty else { throw .invalidParams("the scanned text is empty", field: "text") }
        try checkLength(text)
        let symbology =
            try validated(read.symbology, in: Symbology.barcode)
            ?? reportedAIM.flatMap(Symbology.named(aim:))
            ?? (read.kind == .qr ? "qr" : Symbology.infer(fromText: text))
        let aim = reportedAIM ?? Symbology.aimIdentifier(for: symbology)
        let gs1 = Self.gs1(text, aim: aim, symbology: symbology)
        let item = gs1 == nil ? tradeItem(text, symbology: symbology) : nil
        var embedded: JSONValue?
        if case .variableMeasure(let measure, _)? = item {
            embedded = measure.value.embedded(currency: catalog.currency)
        }
        return ScanEvent(
            id: Self.newID(), time: read.time, device: read.device, driver: read.driver, kind: read.kind,
            symbology: symbology, aim: aim, text: text, raw: raw, gs1: gs1, gtin: gs1?["01"] ?? item?.gtin,
            embedded: embedded)
    }

    /// What the digits of an EAN/UPC/ITF-14 name, read as the product lookup reads them
    /// (``TradeItemCode``), so a handler outside the daemon need not read them again. Only
    /// codes of those symbologies, or of none the scanner named, made of digits alone, are
    /// read: every scan comes through here. Nil for anything else and for a wrong check digit
    /// (the product lookup then says why it is invalid).
    private func tradeItem(_ text: String, symbology: String) -> TradeItemCode? {
        guard Symbology.gtinCarriers.contains(symbology) || symbology == "unknown",
            (6...14).contains(text.utf8.count), text.utf8.allSatisfy({ (0x30...0x39).contains($0) })
        else { return nil }
        return try? TradeItemCode.read(digits: Substring(text), symbology: symbology, region: catalog.region)
    }

    /// The application identifiers of GS1 content: an element string (said so by the AIM
    /// identifier or the symbology) or a GS1 Digital Link URL. Nil for anything else, and for
    /// malformed GS1 (the product handler then says why it is invalid).
    static func gs1(_ text: String, aim: String?, symbology: String) -> [String: String]? {
        if GS1ElementString.isGS1(aim: aim, symbology: symbology) {
            return (try? GS1ElementString.parse(text)).map(GS1ElementString.dictionary)
        }
        let scheme = text.prefix(8).lowercased()
        if scheme.hasPrefix("http://") || scheme.hasPrefix("https://") {
            return (try? GS1DigitalLink.parse(text))?.map(GS1ElementString.dictionary)
        }
        return nil
    }

    private func checkLength(_ text: String) throws(ScanBridgeError) {
        guard text.utf8.count <= maxTextBytes else {
            throw .invalidParams(
                "the scanned text has \(text.utf8.count) bytes; at most \(maxTextBytes) are accepted", field: "text")
        }
    }

    private func validated(_ symbology: String?, in names: [String]) throws(ScanBridgeError) -> String? {
        guard let symbology else { return nil }
        guard names.contains(symbology) else {
            throw .invalidParams(
                "unknown symbology '\(symbology)'; use one of \(names.joined(separator: ", "))", field: "symbology")
        }
        return symbology
    }

    static func newID() -> String {
        EventID.make()
    }
}
