/// The PICC data inside a Secure Unique NFC message, once decrypted (NXP AN12196, "PICCData"):
/// the PICCDataTag, then the UID and the read counter where the tag mirrors them.
///
/// A wrong key decrypts to noise, so the tag byte is held to what NTAG 424 DNA writes (UID
/// mirrored, 7 bytes, reserved bits clear): most noise is refused here, and the SDMMAC
/// refuses the rest.
public struct PICCData: Sendable, Hashable {
    /// The card's UID, 7 bytes.
    public let uid: [UInt8]
    /// SDMReadCtr, when the tag mirrors it: it grows with every read, so a message seen
    /// before carries a counter no higher than the last one accepted.
    public let readCounter: Int?
    /// The counter's 3 bytes as the tag wrote them (least significant first).
    public let readCounterBytes: [UInt8]?

    public static let uidLength = 7

    public init(decrypted bytes: [UInt8]) throws(CodeError) {
        guard bytes.count == 16 else { throw CodeError("PICC data has 16 bytes; this has \(bytes.count)") }
        let tag = bytes[0]
        guard tag & 0x80 != 0, tag & 0x30 == 0, Int(tag & 0x0F) == Self.uidLength else {
            throw CodeError("the PICC data's tag byte \(Hex.encode([tag])) is not a mirrored 7-byte UID")
        }
        uid = Array(bytes[1...7])
        if tag & 0x40 != 0 {
            let counter = Array(bytes[8...10])
            readCounterBytes = counter
            readCounter = Int(counter[0]) | Int(counter[1]) << 8 | Int(counter[2]) << 16
        } else {
            readCounterBytes = nil
            readCounter = nil
        }
    }

    /// What the session vectors SV1 and SV2 carry after their 6-byte label: the UID, then the counter.
    public var sessionVectorData: [UInt8] { uid + (readCounterBytes ?? []) }
}
