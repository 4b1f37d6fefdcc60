/// UPC-E, the zero-suppressed 8-digit form of some UPC-A codes (GS1 General Specifications
/// §5.2.2.4.2). Catalogues key items by UPC-A/GTIN, so a UPC-E scan is expanded first.
public enum UPCE {
    /// The 12-digit UPC-A that `code` stands for.
    ///
    /// `code` is `N d1…d6 C` (8 digits: number system 0 or 1, six data digits, check
    /// digit), `N d1…d6` (7 digits) or `d1…d6` (6 digits, number system 0). Scanners
    /// configured to drop the number system or check digit send the shorter forms; the
    /// check digit is then computed. A check digit that is sent must be right.
    /// Inlined into the caller: see ``GTIN``.
    @inlinable
    public static func expand(_ code: some StringProtocol) throws(CodeError) -> String {
        try expand(text: String(code))
    }

    @usableFromInline
    static func expand(text code: String) throws(CodeError) -> String {
        if let bad = ASCII.firstNonDigit(in: code) {
            throw CodeError("a UPC-E code has only digits; \(ASCII.quoted(bad)) is not one")
        }
        var digits = code.map { $0 }
        switch digits.count {
        case 6: digits.insert("0", at: 0)
        case 7, 8: break
        default: throw CodeError("a UPC-E code has 6, 7 or 8 digits; this has \(digits.count)")
        }
        guard digits[0] == "0" || digits[0] == "1" else {
            throw CodeError("a UPC-E code starts with number system 0 or 1; this starts with \(digits[0])")
        }
        let data = upcAData(system: digits[0], d: Array(digits[1...6]))
        // Safe: `data` is 11 ASCII digits.
        let expected = GTIN.checkDigit(forData: data) ?? 0
        if digits.count == 8, let found = ASCII.digit(digits[7]), found != expected {
            throw GTIN.wrongCheckDigit(found: found, expected: expected, data: "\(code.prefix(7)) (UPC-A \(data))")
        }
        return data + String(expected)
    }

    /// The 11 UPC-A data digits for number system `n` and data digits `d` (d[0] is d1):
    /// d6 says where the suppressed zeros go.
    private static func upcAData(system n: Character, d: [Character]) -> String {
        let zeros = { (count: Int) in String(repeating: "0", count: count) }
        let head = String(n)
        switch d[5] {
        case "0", "1", "2": return head + String(d[0...1]) + String(d[5]) + zeros(4) + String(d[2...4])
        case "3": return head + String(d[0...2]) + zeros(5) + String(d[3...4])
        case "4": return head + String(d[0...3]) + zeros(5) + String(d[4])
        default: return head + String(d[0...4]) + zeros(4) + String(d[5])
        }
    }
}
