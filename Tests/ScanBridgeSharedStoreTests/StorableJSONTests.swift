import Testing

@testable import ScanBridgeSharedStore

struct StorableJSONTests {
    @Test func aNULEscapeBecomesTheReplacementCharacter() {
        #expect(StorableJSON.text(Array(#"{"text":"A\u0000B"}"#.utf8)) == #"{"text":"A\ufffdB"}"#)
    }

    @Test func anEscapedBackslashBeforeU0000IsLeftAlone() {
        // The text `\u0000` typed by a scanner: a backslash, then five characters.
        let json = #"{"text":"\\u0000"}"#
        #expect(StorableJSON.text(Array(json.utf8)) == json)
    }

    @Test func otherEscapesAndTextAreUnchanged() {
        let json = #"{"text":"tab\there \u001d GS \"quoted\" é"}"#
        #expect(StorableJSON.text(Array(json.utf8)) == json)
    }
}
