/// NFC Forum Type 2 tags (MIFARE Ultralight, NTAG21x): the capability container on page 3
/// and where the NDEF message sits in the data area from page 4.
public enum Type2Tag {
    /// Bytes per page.
    public static let pageSize = 4
    /// The first page of the data area.
    public static let firstDataPage = 4

    /// The capability container `E1 10 <size/8> <access>`, when the tag has a valid one.
    public struct CapabilityContainer: Sendable, Hashable {
        /// Size of the data area in bytes.
        public let dataAreaSize: Int

        public init?(page3: [UInt8]) {
            guard page3.count >= 4, page3[0] == 0xE1, page3[1] >> 4 == 1 else { return nil }
            dataAreaSize = Int(page3[2]) * 8
        }

        /// NTAG21x are told apart by their data area size; their ATR says only "Ultralight".
        public var cardType: String? {
            switch dataAreaSize / 8 {
            case 0x06: "mifare-ultralight"
            case 0x12: "ntag213"
            case 0x3E: "ntag215"
            case 0x6D: "ntag216"
            default: nil
            }
        }
    }

    /// The NDEF message in a data area: the value of the first NDEF TLV (`03`), skipping
    /// NULL, Lock and Memory TLVs. Nil when there is none or it runs past the bytes read.
    public static func ndefMessage(inDataArea data: [UInt8]) -> [UInt8]? {
        guard let tlv = ndefTLV(in: data), tlv.valueStart + tlv.length <= data.count else { return nil }
        return Array(data[tlv.valueStart..<tlv.valueStart + tlv.length])
    }

    /// How many data-area bytes must be read to hold the NDEF TLV, judged from the first
    /// bytes of the area; nil when they hold no NDEF TLV header.
    public static func bytesNeeded(forDataAreaStart data: [UInt8]) -> Int? {
        ndefTLV(in: data).map { $0.valueStart + $0.length }
    }

    private static func ndefTLV(in data: [UInt8]) -> (valueStart: Int, length: Int)? {
        var index = 0
        while index < data.count {
            let tag = data[index]
            if tag == 0x00 {
                index += 1
                continue
            }
            if tag == 0xFE { return nil }
            guard let (length, valueStart) = tlvLength(data, at: index + 1) else { return nil }
            if tag == 0x03 { return (valueStart, length) }
            index = valueStart + length
        }
        return nil
    }

    /// A TLV length: one byte, or `FF` then two bytes big-endian.
    private static func tlvLength(_ data: [UInt8], at index: Int) -> (length: Int, valueStart: Int)? {
        guard index < data.count else { return nil }
        if data[index] != 0xFF { return (Int(data[index]), index + 1) }
        guard index + 2 < data.count else { return nil }
        return (Int(data[index + 1]) << 8 | Int(data[index + 2]), index + 3)
    }
}
