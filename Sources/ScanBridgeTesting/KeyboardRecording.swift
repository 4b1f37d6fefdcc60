import Foundation

/// A keyboard-wedge scanner's key events as the kernel writes them to an evdev node
/// (24-byte `input_event` records: press, SYN_REPORT, release, SYN_REPORT), to feed the
/// evdev driver through a FIFO or pty. Knows the keys of the US and German layouts for
/// letters, digits and a few symbols, Enter and Tab, and GS as Ctrl+] (US); of the French
/// (AZERTY) layout, letters, digits (Shift and the top row) and `-`.
package struct KeyboardRecording: Sendable {
    package enum Layout: Sendable { case us, de, fr }

    package private(set) var bytes: [UInt8] = []
    /// The time of the next key, in microseconds.
    package var clock: Int64
    package var layout: Layout

    package init(layout: Layout = .us, startingAt microseconds: Int64 = Int64(Date().timeIntervalSince1970 * 1_000_000)) {
        self.layout = layout
        self.clock = microseconds
    }

    /// Types `text` one key every `gap` (a scanner: a few milliseconds), `\n` as Enter and `\t` as Tab.
    package mutating func type(_ text: String, gap: Duration = .milliseconds(3)) {
        for character in text {
            guard let stroke = Self.stroke(for: character, layout: layout) else {
                preconditionFailure("KeyboardRecording cannot type \(character.debugDescription) on \(layout)")
            }
            key(stroke.code, holding: stroke.modifiers)
            clock += gap.microseconds
        }
    }

    /// Presses and releases the key at evdev `code`, with `modifiers` held around it.
    package mutating func key(_ code: UInt16, holding modifiers: [UInt16] = []) {
        for modifier in modifiers { event(type: 1, code: modifier, value: 1) }
        event(type: 1, code: code, value: 1)
        event(type: 0, code: 0, value: 0)
        event(type: 1, code: code, value: 0)
        for modifier in modifiers.reversed() { event(type: 1, code: modifier, value: 0) }
        event(type: 0, code: 0, value: 0)
    }

    /// `SYN_DROPPED`: the kernel's buffer overflowed and events were lost.
    package mutating func dropped() {
        event(type: 0, code: 3, value: 0)
    }

    /// One raw record at the current time.
    package mutating func event(type: UInt16, code: UInt16, value: Int32) {
        withUnsafeBytes(of: (clock / 1_000_000).littleEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: (clock % 1_000_000).littleEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: type.littleEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: code.littleEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// Lets `duration` pass before the next key.
    package mutating func pause(_ duration: Duration) {
        clock += duration.microseconds
    }

    static let shift: UInt16 = 42
    static let control: UInt16 = 29
    static let altGr: UInt16 = 100

    /// The key and modifiers that type `character` on `layout`.
    static func stroke(for character: Character, layout: Layout) -> (code: UInt16, modifiers: [UInt16])? {
        switch character {
        case "\n": return (28, [])
        case "\t": return (15, [])
        case "\u{1D}": return layout == .us ? (27, [control]) : nil
        default: break
        }
        if let digit = character.wholeNumberValue, character.isASCII {
            return (digit == 0 ? 11 : UInt16(digit + 1), layout == .fr ? [shift] : [])
        }
        if character.isASCII, character.isLetter, let lower = character.lowercased().first,
            var code = letterCodes[lower]
        {
            switch (layout, lower) {
            case (.de, "y"): code = 44
            case (.de, "z"): code = 21
            case (.fr, "a"): code = 16
            case (.fr, "q"): code = 30
            case (.fr, "z"): code = 17
            case (.fr, "w"): code = 44
            case (.fr, "m"): code = 39
            default: break
            }
            return (code, character.isUppercase ? [shift] : [])
        }
        switch (layout, character) {
        case (.us, "-"): return (12, [])
        case (.us, "]"): return (27, [])
        case (.us, "/"): return (53, [])
        case (.us, "."): return (52, [])
        case (.us, ":"): return (39, [shift])
        case (.de, "-"): return (53, [])
        case (.de, "]"): return (10, [altGr])
        case (.de, "/"): return (8, [shift])
        case (.de, "."): return (52, [])
        case (.de, ":"): return (52, [shift])
        case (.fr, "-"): return (7, [])
        default: return nil
        }
    }

    /// US QWERTY positions of the letters; German swaps y and z, French a and q, z and w, and moves m.
    private static let letterCodes: [Character: UInt16] = [
        "q": 16, "w": 17, "e": 18, "r": 19, "t": 20, "y": 21, "u": 22, "i": 23, "o": 24, "p": 25,
        "a": 30, "s": 31, "d": 32, "f": 33, "g": 34, "h": 35, "j": 36, "k": 37, "l": 38,
        "z": 44, "x": 45, "c": 46, "v": 47, "b": 48, "n": 49, "m": 50,
    ]
}

extension Duration {
    var microseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000 + attoseconds / 1_000_000_000_000
    }
}
