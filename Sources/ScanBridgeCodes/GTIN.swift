/// GS1 check digits and GTIN normalisation (GS1 General Specifications §7.9.1).
///
/// Every scan and every imported product comes through here. The entry points other modules
/// call are `@inlinable`: generic code called across a module boundary runs unspecialised,
/// asking the runtime for type metadata and witnesses at each character, which would make
/// these checks most of a product lookup's work (docs/architecture.md, Design decisions).
/// The generic ones forward to a body on `String`, which the caller's inlined copy converts
/// to (a code is a small string, held inline).
public enum GTIN {
    /// The check digit for `digits` (the data digits, without a check digit):
    /// weights 3, 1, 3, … from the rightmost data digit.
    @inlinable
    public static func checkDigit(forData digits: some StringProtocol) -> Int? {
        checkDigit(forDataBytes: digits.utf8)
    }

    @inlinable
    static func checkDigit(forDataBytes digits: some Collection<UInt8>) -> Int? {
        var sum = 0
        // Counted from the right: the leftmost digit weighs 3 when there are an odd number.
        var weight = digits.count % 2 == 1 ? 3 : 1
        for byte in digits {
            guard (0x30...0x39).contains(byte) else { return nil }
            sum += Int(byte - 0x30) * weight
            weight = 4 - weight
        }
        return (10 - sum % 10) % 10
    }

    /// True when `code` is all digits and its last digit is the right check digit.
    @inlinable
    public static func hasValidCheckDigit(_ code: some StringProtocol) -> Bool {
        // Bytes, not characters: counting characters walks the grapheme rules.
        let bytes = Substring(code).utf8
        guard bytes.count >= 2, let last = bytes.last, (0x30...0x39).contains(last),
            let expected = checkDigit(forDataBytes: bytes.dropLast())
        else { return false }
        return Int(last - 0x30) == expected
    }

    /// The GTIN-14 form (left-padded with zeros) of a GTIN-8, -12, -13 or -14 with a valid check digit.
    @inlinable
    public static func gtin14(_ code: some StringProtocol) -> String? {
        gtin14(text: String(code))
    }

    @usableFromInline
    static func gtin14(text code: String) -> String? {
        guard lengths.contains(code.utf8.count), hasValidCheckDigit(code) else { return nil }
        return padded(code)
    }
}
