extension GS1ElementString {
    /// Parses the human-readable form printed under GS1 barcodes and typed by people:
    /// `(01)09506000134352(17)251231(10)ABC1`. Spaces around AIs and values are ignored
    /// (GS1 data never holds a space). A value runs until the next `(` that starts a
    /// bracketed known AI, so `(10)AB(5)` is the lot `AB(5)`, but a lot written `AB(17)`
    /// cannot be typed this way.
    /// Inlined into the caller: see ``GTIN``.
    @inlinable
    public static func parseHumanReadable(_ text: some StringProtocol) throws(CodeError) -> [GS1Element] {
        try parseHumanReadable(text: Substring(text))
    }

    @usableFromInline
    static func parseHumanReadable(text: Substring) throws(CodeError) -> [GS1Element] {
        var rest = trimmingBlanks(text)
        guard !rest.isEmpty else { throw CodeError("the GS1 data is empty") }
        var elements: [GS1Element] = []
        while !rest.isEmpty {
            guard let (code, afterAI) = bracketedDigits(at: rest) else {
                throw CodeError(
                    "human-readable GS1 data puts each AI in parentheses, e.g. (01)…; it does not at '\(rest.prefix(8))'")
            }
            guard let ai = GS1ApplicationIdentifier.lookup(code) else {
                throw CodeError("unknown GS1 Application Identifier (\(code))")
            }
            var end = afterAI.startIndex
            while end < afterAI.endIndex, !startsKnownAI(afterAI[end...]) {
                end = afterAI.index(after: end)
            }
            elements.append(try ai.element(trimmingBlanks(afterAI[..<end])))
            rest = afterAI[end...]
        }
        return elements
    }

    /// `("01", rest)` when `text` starts with `(` + 2 to 4 ASCII digits + `)`.
    private static func bracketedDigits(at text: Substring) -> (Substring, Substring)? {
        guard text.first == "(", let close = text.prefix(6).firstIndex(of: ")") else { return nil }
        let code = text[text.index(after: text.startIndex)..<close]
        guard (2...4).contains(code.count), ASCII.firstNonDigit(in: code) == nil else { return nil }
        return (code, trimmingBlanks(text[text.index(after: close)...]))
    }

    private static func startsKnownAI(_ text: Substring) -> Bool {
        bracketedDigits(at: text).flatMap { GS1ApplicationIdentifier.lookup($0.0) } != nil
    }

    private static func trimmingBlanks(_ text: Substring) -> Substring {
        let isBlank = { (char: Character) in char == " " || char == "\t" }
        var trimmed = text.drop(while: isBlank)
        while let last = trimmed.last, isBlank(last) { trimmed.removeLast() }
        return trimmed
    }
}
