import Foundation
import FuzzSupport
import OrderLookup
import ProductLookup
import ScanBridgeCodes
import ScanBridgeCore
import ScanBridgeModel

/// A driver's read as every driver's goes through the pipeline: the `Normalizer` (symbology,
/// AIM identifier, GS1, GTIN and in-store codes, UIDs, raw bytes), then what the product and
/// order handlers make of the event (`ProductCode`, `OrderCode`), and of the same text typed
/// (`products.lookup`, `orders.lookup`). The first bytes say what the driver reported (kind,
/// text or bytes, symbology, AIM identifier, the region, the length limit). Any read gives one
/// event, classified, or an `invalidParams` refusal, never a crash; the event holds to its
/// limit, and a GTIN is always a valid GTIN-14.
enum FuzzNormalizer: FuzzTarget {
    /// Repair Minder's references, the order handler's default.
    private static let references = try? TextPattern(OrderLookup.defaultReferencePattern)
    /// What a driver may report: every name the protocol knows, and one it does not.
    private static let symbologies = Symbology.barcode + Symbology.nfc + ["morse"]

    static func test(_ bytes: UnsafeBufferPointer<UInt8>) {
        var input = FuzzInput(bytes)
        let flags = input.byte()
        let kinds: [DeviceKind] = [.barcode, .qr, .nfc]
        let kind = kinds[Int(flags % 3)]
        let symbologyChoice = Int(input.byte())
        let symbology = symbologyChoice == 0 ? nil : symbologies[(symbologyChoice - 1) % symbologies.count]
        // A camera's decoder reports whatever 8 bytes it has as the AIM identifier.
        let aimLength = Int(input.byte() % 10)
        let aim = aimLength == 0 ? nil : String(decoding: input.bytes(aimLength - 1), as: UTF8.self)
        let region = VariableMeasure.Region.all[Int(input.byte()) % VariableMeasure.Region.all.count]
        let limit = 16 + Int(input.byte()) * 4
        var read = RawRead(
            device: "fuzz", driver: "fuzz", kind: kind, symbology: symbology, aim: aim, time: Date(timeIntervalSince1970: 0))
        if kind == .nfc {
            read.uid = input.bytes(Int(input.byte() % 12))
            if flags & 0x08 != 0 { read.atr = input.bytes(Int(input.byte() % 33)) }
        }
        let data = input.remaining()
        // A keyboard or serial driver gives text, a camera bytes when they are not UTF-8, the mock both.
        switch flags / 3 % 4 {
        case 0: read.text = String(decoding: data, as: UTF8.self)
        case 1: read.bytes = data
        case 2:
            read.text = String(decoding: data, as: UTF8.self)
            read.bytes = data
        default: break
        }
        let normalizer = Normalizer(maxTextBytes: limit, catalog: CatalogSettings(region: region))
        let event: ScanEvent
        do throws(ScanBridgeError) {
            event = try normalizer.normalize(read)
        } catch {
            fuzzCheck(error.code == .invalidParams && error.field != nil, "a read refused with \(error.code): \(error.message)")
            classify(typed: String(decoding: data, as: UTF8.self), region: region)
            return
        }
        fuzzCheck(
            !event.text.isEmpty && event.text.utf8.count <= limit, "an event of \(event.text.utf8.count) bytes, limit \(limit)")
        fuzzCheck(event.kind == kind && (kind != .nfc || event.uid != nil), "a \(kind) read became a \(event.kind) event")
        if let gtin = event.gtin { fuzzCheck(isGTIN14(gtin), "an event's GTIN '\(gtin)'") }
        check(ProductCode.classify(text: event.text, symbology: event.symbology, aim: event.aim, region: region))
        check(OrderCode.parse(event.text, references: references))
        classify(typed: event.text, region: region)
    }

    /// A code typed into a lookup: no symbology, and any text is a reference.
    private static func classify(typed text: String, region: VariableMeasure.Region) {
        check(ProductCode.classify(text: text, symbology: nil, aim: nil, region: region))
        check(OrderCode.parse(text, references: nil))
    }

    private static func check(_ code: ProductCode?) {
        switch code {
        case .gtin(let gtin)?: fuzzCheck(isGTIN14(gtin), "a product code's GTIN '\(gtin)'")
        case .variableMeasure(_, let gtin)?: fuzzCheck(gtin.utf8.count == 14, "an in-store code's GTIN '\(gtin)'")
        case .label(let label)?: fuzzCheck((1...64).contains(label.count), "a label of \(label.count) characters")
        case .invalid, nil: break
        }
    }

    private static func check(_ code: OrderCode?) {
        switch code {
        case .order(let id)?, .device(let id)?:
            fuzzCheck(!id.isEmpty && id.count <= 128 && !id.contains(where: \.isWhitespace), "an order or device id '\(id)'")
        case .reference(let reference)?: fuzzCheck((1...64).contains(reference.utf8.count), "a reference '\(reference)'")
        case .invalid, nil: break
        }
    }

    private static func isGTIN14(_ text: String) -> Bool {
        text.utf8.count == 14 && GTIN.hasValidCheckDigit(text)
    }
}
