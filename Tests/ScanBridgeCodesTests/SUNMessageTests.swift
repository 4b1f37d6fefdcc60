import ScanBridgeCodes
import Testing

/// Reading SUN messages out of URLs and PICC data out of its plaintext: every part's
/// presence, count, hex and length, and what a wrong key decrypts to.
@Suite("SUN messages")
struct SUNMessageTests {
    static let e = "EF963FF7828658A599F3041510671E88"
    static let c = "94EED9EE65337086"

    @Test func parameterNamesAndCase() throws {
        for url in [
            "https://a.example/t?e=\(Self.e)&c=\(Self.c)", "https://a.example/t?c=\(Self.c.lowercased())&x=1&e=\(Self.e)#top",
            "https://a.example/t?uid=1&picc_data=\(Self.e)&cmac=\(Self.c)",
        ] {
            let message = try SUNMessage(url: url)
            #expect(Hex.encode(message.encryptedPICCData) == Self.e && Hex.encode(message.mac) == Self.c)
            #expect(message.macInput.isEmpty && message.encryptedFileData == nil)
        }
    }

    @Test(
        "URLs that are no SUN message",
        arguments: [
            ("https://a.example/t", "no query"),
            ("https://a.example/t?c=\(c)", "no PICC data"),
            ("https://a.example/t?e=\(e)", "no SDMMAC"),
            ("https://a.example/t?e=\(e)&e=\(e)&c=\(c)", "more than once"),
            ("https://a.example/t?e=\(e)&picc_data=\(e)&c=\(c)", "more than once"),
            ("https://a.example/t?e=\(e.dropLast(2))&c=\(c)", "15 bytes"),
            ("https://a.example/t?e=\(e)00000000000000000&c=\(c)", "not hex"),
            ("https://a.example/t?e=\(e)&c=\(c)00", "9 bytes"),
            ("https://a.example/t?e=\(e)&c=\(c)&enc=00", "1 bytes"),
            ("https://a.example/t?e=\(e)&c=\(c)&enc=\(e)", "after the SDMMAC"),
            ("https://a.example/t#?e=\(e)&c=\(c)", "no query"),
        ])
    func notSUNMessages(url: String, reason: String) {
        do {
            _ = try SUNMessage(url: url)
            Issue.record("\(url) was read")
        } catch {
            #expect(error.message.contains(reason), "\(error.message)")
        }
    }

    @Test func piccDataTagBytes() throws {
        let rest: [UInt8] = [0x04, 0xDE, 0x5F, 0x1E, 0xAC, 0xC0, 0x40, 0x3D, 0x00, 0x00, 0xDA, 0x5C, 0xF6, 0x09, 0x41]
        let withoutCounter = try PICCData(decrypted: [0x87] + rest)
        #expect(withoutCounter.readCounter == nil && withoutCounter.sessionVectorData.count == 7)
        for tag: UInt8 in [0x47, 0xC4, 0xD7, 0xE7, 0x00, 0xFF] {
            #expect(throws: CodeError.self) { try PICCData(decrypted: [tag] + rest) }
        }
        #expect(throws: CodeError.self) { try PICCData(decrypted: [0xC7] + rest.dropLast()) }
        #expect(try PICCData(decrypted: [0xC7, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0, 0]).readCounter == 0xFF_FFFF)
    }
}

/// The message's parameters taken out of the URL a client sees, and names a shop chose.
@Suite struct SUNMessageRemovalTests {
    @Test(arguments: [
        ("https://a.example/t?picc_data=AA&cmac=BB", "https://a.example/t"),
        ("https://a.example/t?shop=1&picc_data=AA&cmac=BB&x", "https://a.example/t?shop=1&x"),
        ("https://a.example/t?e=AA&enc=CC&c=BB#top", "https://a.example/t#top"),
        ("https://a.example/t#?picc_data=AA", "https://a.example/t#?picc_data=AA"),
        ("https://a.example/t", "https://a.example/t"),
    ])
    func theMessagesParametersAreRemoved(url: String, shown: String) {
        #expect(SUNMessage.removing(["picc_data", "cmac", "e", "c", "enc"], from: url) == shown)
    }

    @Test func namesAShopChoseAreFound() throws {
        let e = "EF963FF7828658A599F3041510671E88"
        let url = "https://a.example/t?p=\(e)&m=94EED9EE65337086"
        #expect(throws: CodeError.self) { try SUNMessage(url: url) }
        let message = try SUNMessage(url: url, piccNames: ["p"], macNames: ["m"])
        #expect(Hex.encode(message.encryptedPICCData) == e)
    }
}
