extension GTIN {
    /// The GTIN-14 form of a GTIN-8, GTIN-12 (UPC-A), GTIN-13 or GTIN-14 (also ITF-14),
    /// left-padded with zeros, after checking its check digit.
    ///
    /// Unlike ``gtin14(_:)`` it says why a code was refused, for messages a cashier reads.
    public static func normalize(_ code: some StringProtocol) throws(CodeError) -> String {
        if let bad = ASCII.firstNonDigit(in: code) {
            throw CodeError("a GTIN has only digits; \(ASCII.quoted(bad)) is not one")
        }
        guard lengths.contains(code.count) else {
            throw CodeError("a GTIN has 8, 12, 13 or 14 digits; this has \(code.count)")
        }
        if let error = checkDigitError(code) { throw error }
        return padded(code)
    }

    /// The lengths a GTIN may have.
    static let lengths: Set<Int> = [8, 12, 13, 14]

    /// `code` left-padded with zeros to 14 digits.
    static func padded(_ code: some StringProtocol) -> String {
        String(repeating: "0", count: max(0, 14 - code.count)) + code
    }

    /// Why the last digit of `code` (ASCII digits only) is not its check digit; nil when it is.
    static func checkDigitError(_ code: some StringProtocol) -> CodeError? {
        let data = code.dropLast()
        guard let last = code.last.flatMap(ASCII.digit), let expected = checkDigit(forData: data),
              last != expected else { return nil }
        return wrongCheckDigit(found: last, expected: expected, data: String(data))
    }

    /// The one wording of a check-digit mismatch, so every code type reports it alike.
    static func wrongCheckDigit(found: Int, expected: Int, data: String) -> CodeError {
        CodeError("the check digit is \(found) but should be \(expected) for \(data)")
    }
}
