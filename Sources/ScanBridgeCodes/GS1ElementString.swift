/// GS1 element strings: the `01…10…` data of GS1-128, GS1 DataMatrix, GS1 QR, DataBar and
/// DotCode (GS1 General Specifications §7.8). AIs and data are concatenated; the group
/// separator ends variable-length data that is not last.
public enum GS1ElementString {
    /// GS (0x1D), what a scanner sends for FNC1 between elements.
    public static let groupSeparator: Character = "\u{1D}"

    /// The elements of `text`, in order. `text` has no AIM prefix (see
    /// ``strippingSymbologyIdentifier(_:)``).
    ///
    /// Each AI is matched greedily from the table; fixed-length data takes its length,
    /// variable-length data runs to the next GS or the end. A GS after any element is
    /// allowed (§7.8.6) and skipped. Every value is validated as ``GS1ApplicationIdentifier/validate(_:)`` does.
    /// Inlined into the caller: see ``GTIN``.
    @inlinable
    public static func parse(_ text: some StringProtocol) throws(CodeError) -> [GS1Element] {
        try parse(text: Substring(text))
    }

    @usableFromInline
    static func parse(text: Substring) throws(CodeError) -> [GS1Element] {
        var rest = text
        var elements: [GS1Element] = []
        while let first = rest.first {
            if first == groupSeparator {
                rest.removeFirst()
                continue
            }
            guard let ai = GS1ApplicationIdentifier.lookup(prefixOf: rest) else { throw unknownAI(at: rest) }
            rest = rest.dropFirst(ai.code.count)
            let upToSeparator = rest.prefix { $0 != groupSeparator }
            let value = ai.isFixedLength ? upToSeparator.prefix(ai.maxLength) : upToSeparator
            elements.append(try ai.element(value))
            rest = rest.dropFirst(value.count)
        }
        guard !elements.isEmpty else { throw CodeError("the GS1 data is empty") }
        return elements
    }

    /// The element string of `elements`, as a symbol carries it: each AI and its value, a GS
    /// after variable-length data that is not last.
    public static func encode(_ elements: [GS1Element]) -> String {
        var text = ""
        for (index, element) in elements.enumerated() {
            text += element.ai + element.value
            if index < elements.count - 1, element.identifier?.isFixedLength != true { text.append(groupSeparator) }
        }
        return text
    }

    /// Splits the AIM symbology identifier (`]` + code letter + modifier, ISO/IEC 15424)
    /// off scanned text; `aim` is nil when the text does not start with one.
    public static func strippingSymbologyIdentifier(_ text: String) -> (aim: String?, body: Substring) {
        let head = Array(text.prefix(3))
        guard head.count == 3, head[0] == "]", head[1].isASCII, head[1].isLetter,
            head[2].isASCII, head[2].isLetter || head[2].isNumber
        else { return (nil, text[...]) }
        return (String(head), text.dropFirst(3))
    }

    /// True when the AIM identifier says the data is a GS1 element string: GS1-128 `]C1`,
    /// GS1 DataMatrix `]d2`, GS1 QR `]Q3`, DataBar `]e0`, GS1 DotCode `]J1`.
    public static func isGS1(aim: String?) -> Bool {
        guard let aim else { return false }
        return gs1Identifiers.contains(aim)
    }

    /// True when a read is a GS1 element string: its AIM identifier says so, or its symbology
    /// carries only GS1 data (GS1-128, DataBar).
    public static func isGS1(aim: String?, symbology: String?) -> Bool {
        isGS1(aim: aim) || symbology == "gs1-128" || symbology == "databar"
    }

    /// The elements keyed by AI. When an AI repeats, the first value wins: GS1 allows a
    /// repeated AI only with the same value.
    public static func dictionary(_ elements: [GS1Element]) -> [String: String] {
        Dictionary(elements.map { ($0.ai, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    private static let gs1Identifiers: Set<String> = ["]C1", "]d2", "]Q3", "]e0", "]J1"]

    /// Why no AI from the table starts `text`, naming what is there.
    static func unknownAI(at text: Substring) -> CodeError {
        let knownLength = GS1ApplicationIdentifier.codeLength(startOf: text)
        let head = text.prefix(knownLength ?? 2)
        if let bad = ASCII.firstNonDigit(in: head) {
            return CodeError("a GS1 Application Identifier has only digits; \(ASCII.quoted(bad)) is not one")
        }
        guard head.count == (knownLength ?? 2) else {
            return CodeError("the GS1 data ends inside an Application Identifier: \(head)")
        }
        guard knownLength != nil else { return CodeError("no GS1 Application Identifier starts with \(head)") }
        return CodeError("unknown GS1 Application Identifier (\(head))")
    }
}
