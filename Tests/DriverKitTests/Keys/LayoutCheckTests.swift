import Foundation
import ScanBridgeTesting
import Testing

@testable import DriverKit

/// A scanner set to another layout than declared: its reads come out as decoded, with a
/// layout in which they read well, through the real libxkbcommon layouts.
struct LayoutCheckTests {
    /// What a stream declared `layout` makes of `recording`.
    static func decode(_ recording: KeyboardRecording, layout: String) throws -> [KeyStream.Decoded] {
        try KeyStream(layout: layout).feed(recording.bytes)
    }

    @Test func aFrenchScannersEAN13ReadAsUSIsGarbageWithAHintOfFrench() throws {
        var recording = KeyboardRecording(layout: .fr, startingAt: 0)
        recording.type("5901234123457\n")
        let decoded = try Self.decode(recording, layout: "us")
        #expect(decoded.map(\.output) == [.scan("%()!@#$!@#$%&", unmapped: [])], "the read is never silently altered")
        #expect(decoded.first?.betterLayout == LayoutGuess(layout: "fr", text: "5901234123457"))
    }

    @Test func aUSScannerReadAsFrenchOrGermanIsHintedUS() throws {
        var digits = KeyboardRecording(startingAt: 0)
        digits.type("4006381333931\n")
        let french = try Self.decode(digits, layout: "fr")
        #expect(french.first?.betterLayout == LayoutGuess(layout: "us", text: "4006381333931"))

        var sku = KeyboardRecording(startingAt: 0)
        sku.type("ABC-123\n")
        let german = try Self.decode(sku, layout: "de")
        #expect(german.map(\.output) == [.scan("ABCß123", unmapped: [])])
        #expect(german.first?.betterLayout == LayoutGuess(layout: "us", text: "ABC-123"))
    }

    @Test func readsThatLookRightAreNotReadAgain() throws {
        var recording = KeyboardRecording(startingAt: 0)
        recording.type("5901234123457\n")
        recording.type("ABC-1234\n")
        recording.type("]C1010950600013435210ABC1\u{1D}17251231\n")
        let decoded = try Self.decode(recording, layout: "us")
        #expect(decoded.count == 3 && decoded.allSatisfy { $0.betterLayout == nil })

        var german = KeyboardRecording(layout: .de, startingAt: 0)
        german.type("Zylinder-42\n")
        #expect(try Self.decode(german, layout: "de").first?.betterLayout == nil)
    }

    /// Labels one after the other, one garbled by a pause-ended burst: each is checked on its own keys.
    @Test func eachBurstIsCheckedOnItsOwnKeys() throws {
        var recording = KeyboardRecording(layout: .fr, startingAt: 0)
        recording.type("5901234123457")  // no Enter: a pause ends it
        recording.pause(.seconds(1))
        recording.layout = .us
        recording.type("4006381333931\n")
        let decoded = try Self.decode(recording, layout: "us")
        #expect(decoded.map(\.output) == [.scan("%()!@#$!@#$%&", unmapped: []), .scan("4006381333931", unmapped: [])])
        #expect(decoded.map(\.betterLayout) == [LayoutGuess(layout: "fr", text: "5901234123457"), nil])
    }

    @Test func garbageNoLayoutReadsWellGetsNoGuess() throws {
        var recording = KeyboardRecording(startingAt: 0)
        recording.type("%%%%%%%%%%%%%\n".replacingOccurrences(of: "%", with: "5"))
        // 13 digits with a wrong check digit read as digits in every layout: nothing better.
        #expect(try Self.decode(recording, layout: "us").first?.betterLayout == nil)
    }
}
