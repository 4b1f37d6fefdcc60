import Testing

@testable import DriverKit

/// Key codes → text through the real libxkbcommon and xkb-data layouts.
struct KeyDecoderTests {
    /// Presses and releases each key (holding the modifiers given before it) and joins the text.
    static func type(_ strokes: [Stroke], layout: String = "us") throws -> (text: String, outputs: [KeyDecoder.Output]) {
        let decoder = KeyDecoder(keymap: try XKBKeymap.named(layout))
        var outputs: [KeyDecoder.Output] = []
        for stroke in strokes {
            for modifier in stroke.holding { if let out = decoder.key(code: modifier, value: 1) { outputs.append(out) } }
            if let out = decoder.key(code: stroke.code, value: 1) { outputs.append(out) }
            if let out = decoder.key(code: stroke.code, value: 0) { outputs.append(out) }
            for modifier in stroke.holding.reversed() {
                if let out = decoder.key(code: modifier, value: 0) { outputs.append(out) }
            }
        }
        let text = outputs.compactMap { if case .text(let t) = $0 { t } else { nil } }.joined()
        return (text, outputs)
    }

    struct Stroke {
        var code: UInt16
        var holding: [UInt16] = []
        static func key(_ code: UInt16) -> Stroke { Stroke(code: code) }
        static func shift(_ code: UInt16) -> Stroke { Stroke(code: code, holding: [42]) }
        static func altGr(_ code: UInt16) -> Stroke { Stroke(code: code, holding: [100]) }
        static func ctrl(_ code: UInt16) -> Stroke { Stroke(code: code, holding: [29]) }
    }

    /// evdev codes of the digit row: 1–9 are 2–10, 0 is 11.
    static func digits(_ text: String) -> [Stroke] {
        text.map { .key($0 == "0" ? 11 : UInt16(String($0))! + 1) }
    }

    @Test func usDigitsAndShiftedLetters() throws {
        #expect(try Self.type(Self.digits("4006381333931")).text == "4006381333931")
        // Shift+a, b, Shift+1, -, Shift+=
        #expect(try Self.type([.shift(30), .key(48), .shift(2), .key(12), .shift(13)]).text == "Ab!-+")
    }

    @Test func germanLayoutSwapsYAndZAndMovesSymbols() throws {
        // The US positions of y, z, Shift+2, AltGr+q and - on a German keyboard.
        #expect(try Self.type([.key(21), .key(44), .shift(3), .altGr(16), .key(53)], layout: "de").text == "zy\"@-")
    }

    @Test func frenchAndBritishLayouts() throws {
        #expect(try Self.type([.key(16), .key(2), .shift(2)], layout: "fr").text == "a&1")
        #expect(try Self.type([.shift(4), .shift(40)], layout: "gb").text == "£@")
    }

    @Test func capsLockInvertsLetters() throws {
        #expect(try Self.type([.key(58), .key(30), .shift(30), .key(58), .key(30)]).text == "Aaa")
    }

    @Test func controlBracketIsGroupSeparator() throws {
        #expect(try Self.type([.key(11), .key(2), .ctrl(27), .key(2), .key(11)]).text == "01\u{1D}10")
    }

    @Test func altKeypadCodes() throws {
        // Alt held, keypad 0 2 9, Alt released → GS; Alt 65 → A; Alt 0228 → ä (Windows-1252); Alt 132 → ä (CP437).
        let decoder = KeyDecoder(keymap: try XKBKeymap.named("us"))
        func altCode(_ keypad: [UInt16]) -> String {
            var text = ""
            _ = decoder.key(code: 56, value: 1)
            for key in keypad {
                if case .text(let t)? = decoder.key(code: key, value: 1) { text += t }
                if case .text(let t)? = decoder.key(code: key, value: 0) { text += t }
            }
            if case .text(let t)? = decoder.key(code: 56, value: 0) { text += t }
            return text
        }
        #expect(altCode([82, 80, 73]) == "\u{1D}")
        #expect(altCode([77, 76]) == "A")
        #expect(altCode([82, 80, 80, 72]) == "ä")
        #expect(altCode([79, 81, 80]) == "ä")
        #expect(KeyDecoder.character(altCode: [2, 5, 6]) == nil)
    }

    @Test func keypadDigitsTypeDigits() throws {
        #expect(try Self.type([.key(79), .key(80), .key(82), .key(83)]).text == "120.")
    }

    @Test func terminatorsUnmappedKeysAndRepeats() throws {
        let (_, outputs) = try Self.type([.key(28), .key(96), .key(15), .key(59)])
        #expect(outputs == [.terminator, .terminator, .terminator, .unmapped(code: 59)])
        let decoder = KeyDecoder(keymap: try XKBKeymap.named("us"))
        #expect(decoder.key(code: 30, value: 2) == nil)
    }

    @Test func resyncKeepsCapsLockAndHeldShift() throws {
        let decoder = KeyDecoder(keymap: try XKBKeymap.named("us"))
        _ = decoder.key(code: 58, value: 1)
        _ = decoder.key(code: 58, value: 0)
        decoder.resync(pressed: [])
        #expect(decoder.key(code: 30, value: 1) == .text("A"))
        _ = decoder.key(code: 30, value: 0)
        decoder.resync(pressed: [42])
        #expect(decoder.key(code: 30, value: 1) == .text("a"))
    }

    @Test func unknownLayoutsAreAClearError() throws {
        #expect(throws: KeyboardError.unknownLayout("xx-nope")) { try XKBKeymap.named("xx-nope") }
        #expect(throws: KeyboardError.unknownLayout("us; rm")) { try XKBKeymap.named("us; rm") }
        #expect((try? XKBKeymap.named("de(nodeadkeys)")) != nil)
        #expect(try XKBKeymap.named("us") === (try XKBKeymap.named("us")))
    }
}
