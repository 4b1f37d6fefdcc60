import ScanBridgeCodes
import Testing

/// ATR → card type, Type 2 capability containers and TLVs, NDEF records: table tests, and
/// malformed input that must end the parse, never trap.
@Suite("Contactless cards")
struct ContactlessCardTests {
    static func storageATR(standard: UInt8, name: UInt16) -> [UInt8] {
        var atr: [UInt8] = [
            0x3B, 0x8F, 0x80, 0x01, 0x80, 0x4F, 0x0C, 0xA0, 0x00, 0x00, 0x03, 0x06,
            standard, UInt8(name >> 8), UInt8(name & 0xFF), 0, 0, 0, 0,
        ]
        atr.append(atr.dropFirst().reduce(0, ^))
        return atr
    }

    @Test(
        "card types from PC/SC Part 3 ATRs",
        arguments: [
            (UInt8(0x03), UInt16(0x0001), "mifare-classic-1k", "iso14443a"),
            (0x03, 0x0002, "mifare-classic-4k", "iso14443a"),
            (0x03, 0x0003, "mifare-ultralight", "iso14443a"),
            (0x03, 0x003A, "mifare-ultralight-c", "iso14443a"),
            (0x11, 0x003B, "felica", "felica"),
            (0x0B, 0x0000, "unknown", "iso15693"),
            (0x07, 0x7777, "unknown", "iso14443b"),
        ])
    func cardTypes(standard: UInt8, name: UInt16, type: String, symbology: String) {
        let atr = CardATR(bytes: Self.storageATR(standard: standard, name: name))
        #expect(atr.cardType == type && atr.symbology == symbology)
    }

    @Test func classic1KATRIsTheOneReadersGive() {
        #expect(Self.storageATR(standard: 0x03, name: 0x0001).last == 0x6A)
    }

    @Test func desfireAndNonsenseATRs() {
        #expect(CardATR(bytes: [0x3B, 0x81, 0x80, 0x01, 0x80, 0x80]).cardType == "desfire")
        #expect(CardATR(bytes: [0x3B, 0x86, 0x80, 0x01, 0x06, 0x75, 0x77, 0x81, 0x02, 0x80, 0x00]).cardType == "desfire")
        for bytes in [[], [0x3B], [UInt8](repeating: 0xFF, count: 40), [0x4F, 0xA0, 0x00, 0x00, 0x03, 0x06]] {
            let atr = CardATR(bytes: bytes)
            #expect(atr.cardType == "unknown" && atr.symbology == nil && atr.bytes.count <= 33)
        }
    }

    /// ISO 14443-4 cards are asked for the Type 4 NDEF application; storage cards and
    /// nonsense are not.
    @Test func iso14443Part4FromTheATR() {
        for bytes: [UInt8] in [
            [0x3B, 0x81, 0x80, 0x01, 0x80, 0x80], [0x3B, 0x80, 0x80, 0x01, 0x01],
            [0x3B, 0x86, 0x80, 0x01, 0x06, 0x75, 0x77, 0x81, 0x02, 0x80, 0x00],
            [0x3B, 0x88, 0x80, 0x01, 0x00, 0x00, 0x00, 0x00, 0x77, 0x81, 0x71, 0x00, 0x79],
        ] {
            #expect(CardATR(bytes: bytes).isISO14443Part4, "\(Hex.encode(bytes))")
        }
        for bytes: [UInt8] in [
            Self.storageATR(standard: 0x03, name: 0x0003), Self.storageATR(standard: 0x03, name: 0x0001), [],
            [0x3B, 0x81, 0x80], [0x3B, 0x8F, 0x01, 0x80, 0x4F], [0x3F, 0x81, 0x80, 0x01, 0x80, 0x80],
        ] {
            #expect(!CardATR(bytes: bytes).isISO14443Part4, "\(Hex.encode(bytes))")
        }
    }

    @Test(
        "NTAG21x from the capability container",
        arguments: [
            (UInt8(0x06), "mifare-ultralight"), (0x12, "ntag213"), (0x3E, "ntag215"), (0x6D, "ntag216"),
        ])
    func ntagFromContainer(size: UInt8, type: String) throws {
        let container = try #require(Type2Tag.CapabilityContainer(page3: [0xE1, 0x10, size, 0x00]))
        #expect(container.cardType == type && container.dataAreaSize == Int(size) * 8)
    }

    @Test func noContainerWithoutTheMagicByte() {
        #expect(Type2Tag.CapabilityContainer(page3: [0x00, 0x10, 0x12, 0x00]) == nil)
        #expect(Type2Tag.CapabilityContainer(page3: [0xE1]) == nil)
    }

    @Test func ndefTLVAfterLockAndNullTLVs() {
        let area: [UInt8] = [0x00, 0x01, 0x03, 0xA0, 0x0C, 0x44, 0x03, 0x03, 0xD1, 0x01, 0x00, 0xFE]
        #expect(Type2Tag.ndefMessage(inDataArea: area) == [0xD1, 0x01, 0x00])
        #expect(Type2Tag.bytesNeeded(forDataAreaStart: Array(area.prefix(8))) == 11)
        let long: [UInt8] = [0x03, 0xFF, 0x01, 0x00]
        #expect(Type2Tag.bytesNeeded(forDataAreaStart: long) == 4 + 256)
        #expect(Type2Tag.ndefMessage(inDataArea: long) == nil, "runs past the bytes read")
        #expect(Type2Tag.ndefMessage(inDataArea: [0xFE, 0x03, 0x01, 0x00]) == nil)
        #expect(Type2Tag.ndefMessage(inDataArea: [0x01, 0xFF]) == nil)
    }

    @Test func uriAndTextRecords() {
        let uri: [UInt8] = [0x91, 0x01, 0x0C, 0x55, 0x04] + Array("example.com".utf8)
        let text: [UInt8] = [0x51, 0x01, 0x08, 0x54, 0x02] + Array("enHello".utf8)
        #expect(
            NDEFMessage.records(in: uri + text) == [
                .init(type: "U", value: "https://example.com"), .init(type: "T", value: "Hello"),
            ])
        let utf16: [UInt8] = [0xD1, 0x01, 0x07, 0x54, 0x82] + Array("de".utf8) + [0x00, 0x48, 0x00, 0x69]
        #expect(NDEFMessage.records(in: utf16) == [.init(type: "T", value: "Hi")])
        let mime: [UInt8] = [0xD2, 0x0A, 0x02] + Array("text/plain".utf8) + Array("ok".utf8)
        #expect(NDEFMessage.records(in: mime) == [.init(type: "text/plain", value: "ok")])
    }

    @Test func malformedMessagesEndTheParse() {
        for message: [UInt8] in [
            [0xD1], [0xD1, 0x01], [0xD1, 0x01, 0xFF, 0x55], [0xC1, 0x01, 0xFF, 0xFF, 0xFF, 0xFF, 0x55],
            [0xD9, 0x01, 0x01], [0xD1, 0x01, 0x00, 0x55], [0xD1, 0x01, 0x01, 0x54, 0xBF],
        ] {
            _ = NDEFMessage.records(in: message)
        }
        #expect(NDEFMessage.records(in: [0xD1, 0x01, 0x01, 0x55, 0xEE]) == [.init(type: "U", value: "")])
    }
}
