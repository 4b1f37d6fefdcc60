import Foundation

/// A contactless card for tests, tapped on a vpcd virtual reader of the real pcscd, so
/// tests run the real PC/SC stack: it answers power, ATR and the PC/SC Part 3 pseudo-APDUs
/// with any UID, ATR, Type 2 memory or Type 4 files, or with whatever a test makes it say.
package struct VirtualCard: Sendable {
    package var uid: [UInt8]
    package var atr: [UInt8]
    /// Type 2 tag memory from page 0 (4 bytes a page); empty for cards that are not Type 2.
    package var pages: [UInt8]
    /// The NDEF application of a Type 4 tag, nil for cards that are not Type 4.
    package var type4: Type4Application?
    /// Answers APDUs before the built-in behaviour does (nil: fall through), e.g. `6A 81` to GET DATA.
    package var answer: @Sendable ([UInt8]) -> [UInt8]?
    /// The card leaves the field after this many APDUs, unanswered (a card pulled mid-read).
    package var leavesAfterAPDUs: Int?

    package init(
        uid: [UInt8], atr: [UInt8], pages: [UInt8] = [], type4: Type4Application? = nil, leavesAfterAPDUs: Int? = nil,
        answer: @escaping @Sendable ([UInt8]) -> [UInt8]? = { _ in nil }
    ) {
        self.uid = uid
        self.atr = atr
        self.pages = pages
        self.type4 = type4
        self.leavesAfterAPDUs = leavesAfterAPDUs
        self.answer = answer
    }

    /// The response to one APDU: GET DATA gives the UID, READ BINARY gives 16 bytes of memory
    /// (a Type 4 tag's files take ISO 7816-4 commands, class 00, instead). Mutating: a Type 4
    /// tag remembers what is selected.
    package mutating func respond(to apdu: [UInt8]) -> [UInt8] {
        if let custom = answer(apdu) { return custom }
        if apdu.first == 0x00, let answer = type4?.respond(to: apdu) { return answer }
        let ok: [UInt8] = [0x90, 0x00]
        switch Array(apdu.prefix(2)) {
        case [0xFF, 0xCA] where apdu.count >= 4 && apdu[2] == 0x00: return uid + ok
        case [0xFF, 0xB0] where apdu.count >= 5 && !pages.isEmpty:
            let start = (Int(apdu[2]) << 8 | Int(apdu[3])) * 4
            let length = apdu[4] == 0 ? 16 : Int(apdu[4])
            guard start < pages.count else { return [0x6A, 0x82] }
            let bytes = pages[start..<min(start + length, pages.count)]
            return Array(bytes) + [UInt8](repeating: 0, count: length - bytes.count) + ok
        default: return [0x6A, 0x81]
        }
    }
}

extension VirtualCard {
    /// A PC/SC Part 3 storage-card ATR: `3B 8F 80 01 80 4F 0C A0 00 00 03 06 <standard> <name> 00 00 00 00 <TCK>`.
    package static func storageCardATR(standard: UInt8 = 0x03, name: UInt16) -> [UInt8] {
        var atr: [UInt8] = [
            0x3B, 0x8F, 0x80, 0x01, 0x80, 0x4F, 0x0C, 0xA0, 0x00, 0x00, 0x03, 0x06,
            standard, UInt8(name >> 8), UInt8(name & 0xFF), 0x00, 0x00, 0x00, 0x00,
        ]
        atr.append(atr.dropFirst().reduce(0, ^))
        return atr
    }

    /// An NTAG21x-style Type 2 tag: 7-byte UID, Ultralight ATR, capability container with
    /// `sizeByte` (0x12 NTAG213, 0x3E NTAG215, 0x6D NTAG216, 0x06 Ultralight) and `ndef` in a TLV.
    package static func type2(uid: [UInt8], sizeByte: UInt8 = 0x12, ndef: [UInt8]? = nil) -> VirtualCard {
        var pages = Array(uid.prefix(3)) + [0x88] + Array(uid.dropFirst(3).prefix(4)) + [0x00, 0x00, 0x00, 0x00]
        pages += [0xE1, 0x10, sizeByte, 0x00]
        if let ndef {
            let length: [UInt8] =
                ndef.count < 0xFF ? [UInt8(ndef.count)] : [0xFF, UInt8(ndef.count >> 8), UInt8(ndef.count & 0xFF)]
            pages += [0x03] + length + ndef + [0xFE]
        } else {
            pages += [0x03, 0x00, 0xFE]
        }
        pages += [UInt8](repeating: 0, count: max(0, Int(sizeByte) * 8 + 16 - pages.count))
        return VirtualCard(uid: uid, atr: storageCardATR(name: 0x0003), pages: pages)
    }

    /// An NDEF message of one well-known record: `U` with a URI prefix code, or `T` with a
    /// language; a short record (SR) up to 255 bytes of payload, a long one past that.
    package static func ndefRecord(type: Character, payload: [UInt8]) -> [UInt8] {
        let name = UInt8(ascii: type.unicodeScalars.first!)
        guard payload.count > 0xFF else { return [0xD1, 0x01, UInt8(payload.count), name] + payload }
        let length = (0..<4).reversed().map { UInt8(payload.count >> ($0 * 8) & 0xFF) }
        return [0xC1, 0x01] + length + [name] + payload
    }

    package static func ndefURI(_ rest: String, prefixCode: UInt8 = 0x04) -> [UInt8] {
        ndefRecord(type: "U", payload: [prefixCode] + Array(rest.utf8))
    }

    package static func ndefText(_ text: String, language: String = "en") -> [UInt8] {
        ndefRecord(type: "T", payload: [UInt8(language.utf8.count)] + Array(language.utf8) + Array(text.utf8))
    }
}
