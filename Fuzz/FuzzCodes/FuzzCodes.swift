import FuzzSupport
import ScanBridgeCodes

/// The code parsers of ScanBridgeCodes, the first byte choosing which: what a card holds
/// (NDEF, Type 2 tag memory, ATR, UID) and what a scanner types (GTIN, UPC-E, GS1 element
/// strings, GS1 Digital Link, variable-measure codes). Any input gives a value or a
/// CodeError, never a crash.
enum FuzzCodes: FuzzTarget {
    static func test(_ bytes: UnsafeBufferPointer<UInt8>) {
        var input = FuzzInput(bytes)
        let choice = input.byte()
        let data = input.remaining()
        let text = String(decoding: data, as: UTF8.self)
        switch choice % 10 {
        case 0: _ = NDEFMessage.records(in: data)
        case 1:
            _ = Type2Tag.bytesNeeded(forDataAreaStart: data)
            if let message = Type2Tag.ndefMessage(inDataArea: data) { _ = NDEFMessage.records(in: message) }
        case 2: _ = Type2Tag.CapabilityContainer(page3: data)
        case 3: _ = CardATR(bytes: data)
        case 4:
            _ = try? NFCUID(bytes: data)
            _ = try? NFCUID(parsing: text)
        case 5:
            _ = try? GTIN.normalize(text)
            _ = GTIN.gtin14(text)
            _ = GTIN.hasValidCheckDigit(text)
            _ = GTIN.checkDigit(forData: text)
        case 6: _ = try? UPCE.expand(text)
        case 7:
            let (aim, body) = GS1ElementString.strippingSymbologyIdentifier(text)
            _ = GS1ElementString.isGS1(aim: aim)
            if let elements = try? GS1ElementString.parse(body) { _ = GS1ElementString.dictionary(elements) }
        case 8: _ = try? GS1DigitalLink.parse(text)
        default:
            for region in VariableMeasure.Region.all { _ = try? VariableMeasure.parse(text, region: region) }
        }
    }
}
