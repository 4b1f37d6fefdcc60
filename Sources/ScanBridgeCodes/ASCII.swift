/// Character tests shared by the code parsers. Scanners send ASCII; anything else
/// (full-width or Arabic-Indic digits, combining marks) is rejected, never reinterpreted.
enum ASCII {
    /// The value of an ASCII digit `0`–`9`; nil for any other character.
    static func digit(_ char: Character) -> Int? {
        guard char.isASCII, let value = char.wholeNumberValue else { return nil }
        return value
    }

    /// The first character of `text` that is not an ASCII digit.
    static func firstNonDigit(in text: some StringProtocol) -> Character? {
        if text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) { return nil }
        return text.first { digit($0) == nil }
    }

    /// `'A'` for a printable character, `U+001D` for a control character or space, so an
    /// error message shows what was really there.
    static func quoted(_ char: Character) -> String {
        let isInvisible = { (scalar: Unicode.Scalar) in scalar.value <= 0x20 || (0x7F...0x9F).contains(scalar.value) }
        guard char.unicodeScalars.contains(where: isInvisible) else { return "'\(char)'" }
        return char.unicodeScalars.map { scalar in
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }.joined(separator: " ")
    }
}
