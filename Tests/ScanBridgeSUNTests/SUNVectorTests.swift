import ScanBridgeCodes
import ScanBridgeSUN
import Testing

/// The worked examples of NXP AN12196 (NTAG 424 DNA features and hints: the SUN message with
/// its PICC data and SDMMAC, and with encrypted file data) and AN10922 (AES-128 key
/// diversification), step by step, through libcrypto.
@Suite("SUN vectors of AN12196 and AN10922")
struct SUNVectorTests {
    static func bytes(_ hex: String) -> [UInt8] { Hex.decode(hex)! }
    static let zero = AESKey.factory

    /// AN12196's SUN message with mirrored UID and counter and a MAC over no input.
    static let plainURL = "https://choose.url.com/ntag424?e=EF963FF7828658A599F3041510671E88&c=94EED9EE65337086"
    /// AN12196's SUN message with encrypted file data, the MAC over `<enc>&cmac=`.
    static let fileDataURL =
        "https://www.my424dna.com/?picc_data=FD91EC264309878BE6345CBE53BADF40&enc=CEE9A53E3E463EF1F459635736738962"
        + "&cmac=ECC1E7F6C6C73BF6"

    @Test func piccDataDecryptsToTheUIDAndCounter() throws {
        let plain = try AES128.decryptCBC(
            Self.zero, iv: [UInt8](repeating: 0, count: 16), Self.bytes("EF963FF7828658A599F3041510671E88"))
        #expect(Hex.encode(plain) == "C704DE5F1EACC0403D0000DA5CF60941")
        let picc = try PICCData(decrypted: plain)
        #expect(Hex.encode(picc.uid) == "04DE5F1EACC040" && picc.readCounter == 61)
        #expect(Hex.encode(picc.sessionVectorData) == "04DE5F1EACC0403D0000")
    }

    @Test func sessionKeysFromSV1AndSV2() throws {
        let picc = try PICCData(decrypted: Self.bytes("C704DE5F1EACC0403D0000DA5CF60941"))
        let keys = try SDMSessionKeys(fileReadKey: Self.zero, picc: picc)
        // SV1 = C33C0001008004DE5F1EACC0403D0000, SV2 = 3CC30001008004DE5F1EACC0403D0000.
        #expect(keys.encryption == (try AESKey(hex: "DF38382B84FB90D2DDDB24E51AAFF7AC")))
        #expect(keys.mac == (try AESKey(hex: "3FB5F6E3A807A03D5E3570ACE393776F")))
        #expect(Hex.encode(try AES128.cmac(keys.mac, [])) == "E194C7EE12D9F7EE8A65C8331B704386")
        #expect(Hex.encode(try keys.sdmmac(of: [])) == "94EED9EE65337086", "the odd bytes of the CMAC")
    }

    @Test func theMessageVerifies() throws {
        let verifier = SUNVerifier(metaReadKey: Self.zero) { _ in Self.zero }
        let verified = try verifier.verify(SUNMessage(url: Self.plainURL)).get()
        #expect(Hex.encode(verified.uid) == "04DE5F1EACC040" && verified.readCounter == 61 && verified.fileData == nil)
    }

    @Test func theMessageWithFileDataVerifiesAndDecrypts() throws {
        let message = try SUNMessage(url: Self.fileDataURL)
        #expect(String(decoding: message.macInput, as: UTF8.self) == "CEE9A53E3E463EF1F459635736738962&cmac=")
        let verifier = SUNVerifier(metaReadKey: Self.zero) { _ in Self.zero }
        let verified = try verifier.verify(message).get()
        #expect(Hex.encode(verified.uid) == "04958CAA5C5E80" && verified.readCounter == 8)
        #expect(verified.fileData.map { String(decoding: $0, as: UTF8.self) } == "xxxxxxxxxxxxxxxx")
    }

    @Test func aChangedMACAnotherKeyOrAnUnknownCardFail() throws {
        // AN12196's wrong SDMMAC beside the right one.
        let altered = try SUNMessage(url: String(Self.fileDataURL.dropLast(16)) + "3CC1E7F6C6C33B33")
        let verifier = SUNVerifier(metaReadKey: Self.zero) { _ in Self.zero }
        #expect(verifier.verify(altered) == .failure(.badMAC))
        let otherFileKey = SUNVerifier(metaReadKey: Self.zero) { _ in try? AESKey(hex: "00112233445566778899AABBCCDDEEFF") }
        #expect(otherFileKey.verify(try SUNMessage(url: Self.plainURL)) == .failure(.badMAC))
        let unknown = SUNVerifier(metaReadKey: Self.zero) { _ in nil }
        #expect(unknown.verify(try SUNMessage(url: Self.plainURL)) == .failure(.unknownKey))
        let otherMetaKey = SUNVerifier(metaReadKey: try AESKey(hex: "00112233445566778899AABBCCDDEEFF")) { _ in Self.zero }
        guard case .failure(.unreadable) = otherMetaKey.verify(try SUNMessage(url: Self.plainURL)) else {
            Issue.record("PICC data under another meta read key decrypted to a UID")
            return
        }
    }

    @Test func an10922Diversification() throws {
        // UID 04782E21801D80, application 3042F5, system identifier "NXP Abu".
        let key = try KeyDiversification.aes128(
            master: try AESKey(hex: "00112233445566778899AABBCCDDEEFF"), uid: Self.bytes("04782E21801D80"),
            application: Self.bytes("3042F5"), system: Array("NXP Abu".utf8))
        #expect(key == (try AESKey(hex: "A8DD63A3B89D54B37CA802473FDA9175")))
        #expect(throws: SUNError.self) { try KeyDiversification.aes128(master: Self.zero, input: []) }
        #expect(throws: SUNError.self) {
            try KeyDiversification.aes128(master: Self.zero, input: [UInt8](repeating: 1, count: 32))
        }
    }

    @Test func keysAreNeverPrinted() throws {
        let key = try AESKey(hex: "00112233445566778899AABBCCDDEEFF")
        #expect("\(key)" == "AESKey(redacted)" && !String(reflecting: key).contains("0011"))
        #expect(throws: SUNError.self) { try AESKey(hex: "0011") }
        #expect(throws: SUNError.self) { try AES128.encryptECB(key, [1, 2, 3]) }
    }
}
