extension GTIN {
    /// The GTIN-14 form of a GTIN-8, GTIN-12 (UPC-A), GTIN-13 or GTIN-14 (also ITF-14),
    /// left-padded with zeros, after checking its check digit.
    ///
    /// Unlike ``gtin14(_:)`` it says why a code was refused, for messages a cashier reads.
    @inlinable
    public static func normalize(_ code: some StringProtocol) throws(CodeError) -> String {
        try normalize(text: String(code))
    }

    @usableFromInline
    static func normalize(text code: String) throws(CodeError) -> String {
        if let bad = ASCII.firstNonDigit(in: code) {
            throw CodeError("a GTIN has only digits; \(ASCII.quoted(bad)) is not one")
        }
        // ASCII digits only from here: a byte is a character.
        guard lengths.contains(code.utf8.count) else {
            throw CodeError("a GTIN has 8, 12, 13 or 14 digits; this has \(code.utf8.count)")
        }
        if let error = checkDigitError(code) { throw error }
        return padded(code)
    }

    /// The lengths a GTIN may have.
    static let lengths: Set<Int> = [8, 12, 13, 14]

    /// `code` (ASCII digits) left-padded with zeros to 14 digits.
    static func padded(_ code: some StringProtocol) -> String {
        String(repeating: "0", count: max(0, 14 - code.utf8.count)) + code
    }

    /// Why the last digit of `code` (ASCII digits only) is not its check digit; nil when it is.
    static func checkDigitError(_ code: some StringProtocol) -> CodeError? {
        let bytes = Substring(code).utf8
        let data = bytes.dropLast()
        guard let last = bytes.last, (0x30...0x39).contains(last), let expected = checkDigit(forDataBytes: data),
            Int(last - 0x30) != expected
        else { return nil }
        return wrongCheckDigit(found: Int(last - 0x30), expected: expected, data: String(decoding: data, as: UTF8.self))
    }

    /// The one wording of a check-digit mismatch, so every code type reports it alike.
    static func wrongCheckDigit(found: Int, expected: Int, data: String) -> CodeError {
        CodeError("the check digit is \(found) but should be \(expected) for \(data)")
    }
}
