import ScanBridgeCore
import ScanBridgeModel
import Testing

/// The writer every event and answer goes out through: exact escapes, UTF-8 kept as is.
@Suite("JSON output")
struct JSONOutputTests {
    @Test(
        "string literals",
        arguments: [
            ("", #""""#),
            ("5901234123457", #""5901234123457""#),
            ("a\"b\\c", #""a\"b\\c""#),
            ("\"", #""\"""#),
            ("line\nnext\r\tend", #""line\nnext\r\tend""#),
            ("(01)0950\u{1D}10ABC", #""(01)0950\u001d10ABC""#),
            ("\u{0}\u{1F}x", #""\u0000\u001fx""#),
            ("Café 😀 /", "\"Café 😀 /\""),
        ])
    func strings(_ text: String, expected: String) throws {
        var out: [UInt8] = []
        JSONOutput.appendString(text, to: &out)
        #expect(String(decoding: out, as: UTF8.self) == expected)
        #expect(try JSONValue(parsing: out) == .string(text))
    }

    @Test func aStringFromASubstringIsWrittenWhole() {
        let line = "prefix:\"quoted\" text"
        var out: [UInt8] = []
        JSONOutput.appendString(String(line.dropFirst(7)), to: &out)
        #expect(String(decoding: out, as: UTF8.self) == #""\"quoted\" text""#)
    }
}
