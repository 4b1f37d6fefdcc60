import ScanBridgeRPC
import Testing

/// The scan that refuses an oversized batch before parsing it counts what the parser would.
struct BatchSizeScanTests {
    static func scan(_ line: String, _ limit: Int) -> Bool {
        IncomingMessage.isBatch(Array(line.utf8), longerThan: limit)
    }

    @Test func countsTopLevelElementsOnly() {
        #expect(Self.scan("[1,2,3]", 2))
        #expect(!Self.scan("[1,2,3]", 3))
        #expect(!Self.scan("  [1,[2,3,4],{\"a\":1,\"b\":2}]", 3), "commas inside elements are not separators")
        #expect(!Self.scan(#"[{"text":"a,b,c,d\",e"}]"#, 1), "nor are commas in strings, escaped quotes included")
        #expect(Self.scan(#"[{"text":"a\\"},2]"#, 1), "an escaped backslash ends before the closing quote")
    }

    @Test func aLineThatIsNoBatchIsLeftToTheParser() {
        #expect(!Self.scan(#"{"jsonrpc":"2.0","method":"x","params":[1,2,3]}"#, 1))
        #expect(!Self.scan("[1,2]garbage,3,4,5", 2), "the batch ended: the parser says what is wrong")
        #expect(!Self.scan("", 0))
        #expect(!Self.scan("[", 0))
    }

    @Test func stopsCountingAtTheLimit() {
        let huge = "[" + Array(repeating: "1", count: 500_000).joined(separator: ",")
        #expect(Self.scan(huge, 1_000), "an unterminated line past the limit is refused as well")
    }
}
