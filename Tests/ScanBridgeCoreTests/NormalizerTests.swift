import Foundation
import ScanBridgeCore
import ScanBridgeModel
import Testing

@Suite("Normalizer")
struct NormalizerTests {
    let normalizer = Normalizer()

    /// Runs `body` and returns the ScanBridgeError it threw, if any.
    func failure(_ read: RawRead, normalizer: Normalizer = Normalizer()) -> ScanBridgeError? {
        do {
            _ = try normalizer.normalize(read)
            return nil
        } catch {
            return error
        }
    }

    @Test(
        "barcode symbology is inferred from the text, with its AIM id",
        arguments: [
            ("5901234123457", "ean-13", "]E0"),
            ("036000291452", "upc-a", "]E0"),
            ("96385074", "ean-8", "]E4"),
            ("5901234123458", "unknown", nil),
            ("hello world", "unknown", nil),
        ] as [(String, String, String?)])
    func infersSymbology(_ text: String, symbology: String, aim: String?) throws {
        let time = Date(timeIntervalSince1970: 1_800_000_000)
        let read = RawRead(device: "mock:barcode-1", driver: "mock", kind: .barcode, text: text, time: time)
        let event = try normalizer.normalize(read)
        #expect(event.symbology == symbology)
        #expect(event.aim == aim)
        #expect(event.text == text)
        #expect(event.kind == .barcode)
        #expect(event.device == "mock:barcode-1")
        #expect(event.driver == "mock")
        #expect(event.time == time)
        #expect(event.seq == 0)
        #expect(event.raw == nil)
        #expect(event.uid == nil)
        #expect(event.resolution == .unhandled)
    }

    @Test("every event gets its own id")
    func uniqueIDs() throws {
        let ids = try (0..<100).map { _ in try normalizer.normalize(barcodeRead("x")).id }
        #expect(Set(ids).count == 100)
        #expect(ids.allSatisfy { !$0.isEmpty })
    }

    @Test("a QR camera's reading is qr, whatever its text", arguments: ["ORDER:ord_1001", "5901234123457"])
    func qrKind(_ text: String) throws {
        let event = try normalizer.normalize(barcodeRead(text, device: "mock:qr-1", kind: .qr))
        #expect(event.kind == .qr)
        #expect(event.symbology == "qr")
        #expect(event.aim == "]Q1")
    }

    @Test("a reported AIM identifier is kept")
    func reportedAim() throws {
        var read = barcodeRead("5901234123457")
        read.aim = "]E3"
        #expect(try normalizer.normalize(read).aim == "]E3")
    }

    @Test(
        "an explicit symbology is kept and gets its AIM id",
        arguments: [
            ("code-128", "]C0"), ("qr", "]Q1"), ("gs1-128", "]C1"), ("unknown", nil),
        ] as [(String, String?)])
    func explicitSymbology(_ symbology: String, aim: String?) throws {
        var read = barcodeRead("ABC-123")
        read.symbology = symbology
        let event = try normalizer.normalize(read)
        #expect(event.symbology == symbology)
        #expect(event.aim == aim)
    }

    @Test("an unknown symbology is invalid params naming the field", arguments: ["EAN13", "ean_13", "iso14443a", ""])
    func unknownSymbology(_ symbology: String) {
        var read = barcodeRead("5901234123457")
        read.symbology = symbology
        let error = failure(read)
        #expect(error?.code == .invalidParams)
        #expect(error?.field == "symbology")
        #expect(error?.message.contains("unknown symbology '\(symbology)'") == true)
    }

    @Test("empty or missing text is rejected")
    func emptyText() {
        for read in [
            barcodeRead(""), RawRead(device: "mock:barcode-1", driver: "mock", kind: .barcode),
            RawRead(device: "mock:qr-1", driver: "mock", kind: .qr, bytes: []),
        ] {
            let error = failure(read)
            #expect(error?.code == .invalidParams)
            #expect(error?.field == "text")
        }
    }

    @Test("text over the limit is rejected, text at the limit passes")
    func oversizedText() throws {
        let small = Normalizer(maxTextBytes: 10)
        #expect(try small.normalize(barcodeRead(String(repeating: "a", count: 10))).text.count == 10)
        let error = failure(barcodeRead(String(repeating: "a", count: 11)), normalizer: small)
        #expect(error?.code == .invalidParams)
        #expect(error?.field == "text")
        #expect(error?.message.contains("11 bytes") == true)
        // The limit is in UTF-8 bytes, not characters.
        #expect(failure(barcodeRead(String(repeating: "é", count: 6)), normalizer: small)?.field == "text")
        // The default accepts the largest QR code (7,089 characters).
        #expect(try normalizer.normalize(barcodeRead(String(repeating: "7", count: 7089))).text.utf8.count == 7089)
    }

    @Test("raw bytes that are not UTF-8 travel base64 in raw")
    func rawNonUTF8() throws {
        let read = RawRead(device: "mock:barcode-1", driver: "mock", kind: .barcode, bytes: [0x41, 0xFF, 0x42])
        let event = try normalizer.normalize(read)
        #expect(event.raw == "Qf9C")
        #expect(event.text == "A\u{FFFD}B")
        #expect(event.symbology == "unknown")
    }

    @Test("raw bytes that are UTF-8 become the text, without raw")
    func rawUTF8() throws {
        let read = RawRead(device: "mock:barcode-1", driver: "mock", kind: .barcode, bytes: Array("5901234123457".utf8))
        let event = try normalizer.normalize(read)
        #expect(event.text == "5901234123457")
        #expect(event.raw == nil)
        #expect(event.symbology == "ean-13")
    }

    @Test("raw is set when the bytes differ from the given text, not when they match")
    func rawWithText() throws {
        var read = barcodeRead("A\u{1D}B")
        read.bytes = Array("A\u{1D}B".utf8)
        #expect(try normalizer.normalize(read).raw == nil)
        read.bytes = [0x41, 0x1D, 0x42, 0x0D]
        #expect(try normalizer.normalize(read).raw == Data([0x41, 0x1D, 0x42, 0x0D]).base64EncodedString())
        #expect(try normalizer.normalize(read).text == "A\u{1D}B")
    }

    @Test("an NFC read needs a uid")
    func nfcNeedsUID() {
        let error = failure(RawRead(device: "mock:nfc-1", driver: "mock", kind: .nfc, text: "04A1B2C3"))
        #expect(error?.code == .invalidParams)
        #expect(error?.field == "uid")
    }

    @Test("an NFC uid of a bad length is rejected", arguments: [[UInt8](), [1, 2, 3], [1, 2, 3, 4, 5]])
    func nfcBadUID(_ uid: [UInt8]) {
        let error = failure(RawRead(device: "mock:nfc-1", driver: "mock", kind: .nfc, uid: uid))
        #expect(error?.code == .invalidParams)
        #expect(error?.field == "uid")
        #expect(error?.message.contains("4, 7, 8 or 10 bytes") == true)
    }

    @Test("an NFC read carries uid, uidDisplay, atr and a default symbology")
    func nfcEvent() throws {
        let read = RawRead(
            device: "mock:nfc-1", driver: "mock", kind: .nfc,
            uid: [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6], atr: [0x3B, 0x8F, 0x80, 0x01],
            cardType: "ntag215", ndef: [NDEFRecord(type: "U", value: "https://example.com")])
        let event = try normalizer.normalize(read)
        #expect(event.kind == .nfc)
        #expect(event.uid == "04A1B2C3D4E5F6")
        #expect(event.uidDisplay == "04:A1:B2:C3:D4:E5:F6")
        #expect(event.text == "04A1B2C3D4E5F6")
        #expect(event.symbology == "iso14443a")
        #expect(event.atr == "3B8F8001")
        #expect(event.cardType == "ntag215")
        #expect(event.ndef == [NDEFRecord(type: "U", value: "https://example.com")])
        #expect(event.aim == nil)
    }

    @Test(
        "NFC default symbology follows the UID's shape",
        arguments: [
            ([0xE0, 0x04, 0x01, 0x50, 0x12, 0x34, 0x56, 0x78], "iso15693"),
            ([0x01, 0x02, 0x03, 0x04], "iso14443a"),
            ([0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08], "unknown"),
        ] as [([UInt8], String)])
    func nfcDefaultSymbology(_ uid: [UInt8], symbology: String) throws {
        let event = try normalizer.normalize(RawRead(device: "mock:nfc-1", driver: "mock", kind: .nfc, uid: uid))
        #expect(event.symbology == symbology)
    }

    @Test("an explicit NFC symbology is validated against the NFC names")
    func nfcExplicitSymbology() throws {
        var read = RawRead(device: "mock:nfc-1", driver: "mock", kind: .nfc, uid: [1, 2, 3, 4, 5, 6, 7, 8])
        read.symbology = "felica"
        #expect(try normalizer.normalize(read).symbology == "felica")
        read.symbology = "ean-13"
        let error = failure(read)
        #expect(error?.code == .invalidParams)
        #expect(error?.field == "symbology")
    }

    @Test("an NFC read keeps its text when given")
    func nfcText() throws {
        let read = RawRead(device: "mock:nfc-1", driver: "mock", kind: .nfc, text: "hello", uid: [1, 2, 3, 4])
        #expect(try normalizer.normalize(read).text == "hello")
    }
}
