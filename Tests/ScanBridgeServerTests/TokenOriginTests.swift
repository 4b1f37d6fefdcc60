import Testing

@testable import ScanBridgeServer

/// Origins as a browser writes them in its `Origin` header, or a reason a person can act on.
@Suite("Token origins")
struct TokenOriginTests {
    @Test(arguments: [
        ("https://pos.example.com", "https://pos.example.com"),
        ("HTTPS://POS.Example.com", "https://pos.example.com"),
        ("https://pos.example.com:443", "https://pos.example.com"),
        ("http://localhost:80", "http://localhost"),
        ("http://localhost:3000", "http://localhost:3000"),
        ("https://pos.example.com:8443", "https://pos.example.com:8443"),
        ("http://127.0.0.1:8765", "http://127.0.0.1:8765"),
        ("http://[::1]:8765", "http://[::1]:8765"),
        ("http://xn--bcher-kva.example", "http://xn--bcher-kva.example"),
        ("chrome-extension://abcdefghijklmnop", "chrome-extension://abcdefghijklmnop"),
    ])
    func anOriginIsWrittenAsABrowserWritesIt(text: String, origin: String) throws {
        #expect(try TokenOrigin.normalized(text) == origin)
    }

    @Test(arguments: [
        "", "pos.example.com", "https://", "https://pos.example.com/", "https://pos.example.com/pos",
        "https://pos.example.com?x=1", "https://pos.example.com#x", "https://user@pos.example.com",
        "https://pos.example.com:0", "https://pos.example.com:65536", "https://pos.example.com:", "https://pos.example.com:8a",
        "https://a:1:2", "https://bücher.example", "https://pos example.com", "https://pos.example.com\n", "1http://x",
        "https://[::1", "https://[zz]", "https://.example", "null", "https://" + String(repeating: "a", count: 260),
    ])
    func anythingElseIsRefused(text: String) {
        #expect(throws: TokenOrigin.Problem.self) { try TokenOrigin.normalized(text) }
    }
}
