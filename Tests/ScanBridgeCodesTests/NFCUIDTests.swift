import ScanBridgeCodes
import Testing

@Suite("NFCUID")
struct NFCUIDTests {
    @Test(
        "accepted spellings of the same 7-byte UID",
        arguments: [
            "04A1B2C3D4E5F6",
            "04a1b2c3d4e5f6",
            "04:A1:B2:C3:D4:E5:F6",
            "04:a1:b2:c3:d4:e5:f6",
            "04-A1-B2-C3-D4-E5-F6",
            "04-a1-b2-c3-d4-e5-f6",
            "04 A1 B2 C3 D4 E5 F6",
            " 04:A1:B2:C3:D4:E5:F6 ",
        ])
    func acceptsSeparatorsAndCase(_ text: String) throws {
        let uid = try NFCUID(parsing: text)
        #expect(uid.bytes == [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6])
        #expect(uid.hex == "04A1B2C3D4E5F6")
        #expect(uid.display == "04:A1:B2:C3:D4:E5:F6")
        #expect(uid.description == "04A1B2C3D4E5F6")
    }

    @Test(
        "accepted lengths, hex and display forms",
        arguments: [
            ("deadbeef", "DEADBEEF", "DE:AD:BE:EF"),
            ("04a1b2c3d4e5f6", "04A1B2C3D4E5F6", "04:A1:B2:C3:D4:E5:F6"),
            ("E0:04:01:50:12:34:56:78", "E004015012345678", "E0:04:01:50:12:34:56:78"),
            ("0102030405060708090a", "0102030405060708090A", "01:02:03:04:05:06:07:08:09:0A"),
        ])
    func acceptedLengths(_ text: String, hex: String, display: String) throws {
        let uid = try NFCUID(parsing: text)
        #expect(NFCUID.validLengths.contains(uid.bytes.count))
        #expect(uid.hex == hex)
        #expect(uid.display == display)
    }

    @Test(
        "other lengths are rejected with a message naming the length",
        arguments: [
            ("01", 1), ("0102", 2), ("010203", 3), ("0102030405", 5), ("010203040506", 6),
            ("010203040506070809", 9), ("0102030405060708090A0B", 11), ("0102030405060708090A0B0C0D0E0F10", 16),
        ])
    func rejectsOtherLengths(_ text: String, count: Int) {
        #expect {
            try NFCUID(parsing: text)
        } throws: { error in
            let message = (error as? CodeError)?.message ?? ""
            return message.contains("4, 7, 8 or 10 bytes") && message.contains("has \(count)")
        }
    }

    @Test("init(bytes:) validates the length too")
    func bytesInitValidates() throws {
        #expect(try NFCUID(bytes: [1, 2, 3, 4]).hex == "01020304")
        #expect(throws: CodeError.self) { try NFCUID(bytes: [1, 2, 3]) }
        #expect(throws: CodeError.self) { try NFCUID(bytes: []) }
    }

    @Test(
        "non-hex text is rejected with a message quoting it",
        arguments: [
            "04A1B2C3D4E5FG",  // G is not hex
            "04A1B2C3D4E5F",  // odd number of digits
            "04.A1.B2.C3",  // unsupported separator
            "04 a1 B2:c3-D4 e5:F6",  // mixed separators
            "04A:1B2:C3D4",  // separators not between bytes
            ":",
            " - : ",
            "04_A1_B2_C3",
            "0xDEADBEEF",
            "04A1B2C3\tD4E5F6",  // tab is not a separator
            "０４Ａ１Ｂ２Ｃ３",  // full-width digits
        ])
    func rejectsNonHex(_ text: String) {
        #expect {
            try NFCUID(parsing: text)
        } throws: { error in
            ((error as? CodeError)?.message ?? "").contains("'\(text)' is not a card UID")
        }
    }

    @Test("empty text is rejected as empty", arguments: ["", "   "])
    func rejectsEmpty(_ text: String) {
        #expect(throws: CodeError("the card UID is empty")) { try NFCUID(parsing: text) }
    }

    @Test(
        "likely symbology from the UID's shape",
        arguments: [
            ("01020304", "iso14443a"),
            ("04A1B2C3D4E5F6", "iso14443a"),
            ("0102030405060708090A", "iso14443a"),
            ("E004015012345678", "iso15693"),
            ("0102030405060708", "unknown"),  // 8 bytes not starting E0: FeliCa IDm or other
        ])
    func likelySymbology(_ text: String, expected: String) throws {
        #expect(try NFCUID(parsing: text).likelySymbology == expected)
    }

    @Test("equal bytes make equal UIDs whatever the spelling")
    func equality() throws {
        #expect(try NFCUID(parsing: "04-a1-b2-c3") == NFCUID(parsing: "04A1B2C3"))
        #expect(try Set([NFCUID(parsing: "04:a1:b2:c3"), NFCUID(parsing: "04A1B2C3")]).count == 1)
    }
}

@Suite("Hex")
struct HexTests {
    @Test func encodeIsUppercase() {
        #expect(Hex.encode([0x00, 0x0F, 0xA0, 0xFF]) == "000FA0FF")
        #expect(Hex.encode([UInt8]()) == "")
    }

    @Test(
        "decode",
        arguments: [
            ("", [UInt8]()),
            ("00ff", [0x00, 0xFF]),
            ("A0b1", [0xA0, 0xB1]),
        ] as [(String, [UInt8])])
    func decode(_ text: String, bytes: [UInt8]) {
        #expect(Hex.decode(text) == bytes)
    }

    @Test("decode rejects", arguments: ["0", "abc", "zz", "0g", " 0f", "é0"])
    func decodeRejects(_ text: String) {
        #expect(Hex.decode(text) == nil)
    }
}
