/// What a contactless card's ATR says about it, as PC/SC Part 3 readers build it.
///
/// A storage card's ATR carries the PC/SC Workgroup RID (`A0 00 00 03 06`), then the
/// standard byte and a two-byte card name; an ISO 14443-4 card (DESFire…) carries its ATS
/// historical bytes instead. Anything else is `unknown`, never an error: the UID still counts.
public struct CardATR: Sendable, Hashable {
    /// The longest ATR ISO 7816-3 allows, and the size of pcsc-lite's ATR buffer.
    public static let maxLength = 33

    public let bytes: [UInt8]
    /// Protocol card type name (`mifare-classic-1k`, `mifare-ultralight`, `desfire`, `unknown`…).
    public let cardType: String
    /// Protocol NFC symbology (`iso14443a`, `iso14443b`, `iso15693`, `felica`), nil when the ATR does not say.
    public let symbology: String?

    /// Whether the card speaks ISO 14443-4 (ISO-DEP), so it takes ISO 7816-4 commands and may
    /// be a Type 4 tag: PC/SC Part 3 readers build its ATR as `3B 8n 80 01` and its ATS
    /// historical bytes (or ATQB's fields), where a storage card's carries the RID instead.
    public var isISO14443Part4: Bool {
        bytes.count >= 5 && bytes[0] == 0x3B && bytes[1] & 0xF0 == 0x80 && bytes[2] == 0x80 && bytes[3] == 0x01
            && Self.storageCardFields(bytes) == nil
    }

    public init(bytes: [UInt8]) {
        self.bytes = Array(bytes.prefix(Self.maxLength))
        if let (standard, name) = Self.storageCardFields(self.bytes) {
            symbology = Self.symbology(standard: standard, name: name)
            cardType = Self.cardNames[name] ?? "unknown"
        } else if Self.isDESFire(self.bytes) {
            symbology = "iso14443a"
            cardType = "desfire"
        } else {
            symbology = nil
            cardType = "unknown"
        }
    }

    /// The RID of the PC/SC Workgroup, which marks a storage card's historical bytes.
    static let pcscRID: [UInt8] = [0xA0, 0x00, 0x00, 0x03, 0x06]

    /// Card name codes of PC/SC Part 3 (supplement), and older ACR122U firmware's F0xx codes.
    static let cardNames: [UInt16: String] = [
        0x0001: "mifare-classic-1k", 0x0002: "mifare-classic-4k", 0x0003: "mifare-ultralight",
        0x0026: "mifare-mini", 0x002F: "jewel", 0x0030: "topaz", 0xF004: "topaz",
        0x0036: "mifare-plus", 0x0037: "mifare-plus", 0x0038: "mifare-plus", 0x0039: "mifare-plus",
        0x003A: "mifare-ultralight-c", 0x003B: "felica", 0xF011: "felica", 0xF012: "felica",
        0x003D: "mifare-ultralight-ev1",
    ]

    /// The standard byte and card name of a storage card's ATR: `3B 8F 80 01 80 4F 0C <RID> SS NN NN …`.
    static func storageCardFields(_ atr: [UInt8]) -> (standard: UInt8, name: UInt16)? {
        guard let rid = atr.firstRange(of: pcscRID), rid.lowerBound >= 2,
            atr[rid.lowerBound - 2] == 0x4F, rid.upperBound + 3 <= atr.count
        else { return nil }
        let standard = atr[rid.upperBound]
        let name = UInt16(atr[rid.upperBound + 1]) << 8 | UInt16(atr[rid.upperBound + 2])
        return (standard, name)
    }

    static func symbology(standard: UInt8, name: UInt16) -> String? {
        if name == 0x003B || name == 0xF011 || name == 0xF012 { return "felica" }
        switch standard {
        case 0x01...0x04: return "iso14443a"
        case 0x05...0x08: return "iso14443b"
        case 0x09...0x0B: return "iso15693"
        case 0x11: return "felica"
        default: return nil
        }
    }

    /// DESFire's ISO 14443-4 ATR (`3B 81 80 01 80 80`) or the `75 77 81 02` historical bytes some readers give.
    static func isDESFire(_ atr: [UInt8]) -> Bool {
        atr == [0x3B, 0x81, 0x80, 0x01, 0x80, 0x80] || atr.firstRange(of: [0x75, 0x77, 0x81, 0x02]) != nil
    }
}
