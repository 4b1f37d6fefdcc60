/// GS1 check digits and GTIN normalisation (GS1 General Specifications §7.9.1).
public enum GTIN {
    /// The check digit for `digits` (the data digits, without a check digit):
    /// weights 3, 1, 3, … from the rightmost data digit.
    public static func checkDigit(forData digits: some StringProtocol) -> Int? {
        // On the UTF-8 bytes: every scan and every imported product comes through here.
        var sum = 0
        var weight = 3
        for byte in digits.utf8.reversed() {
            guard (0x30...0x39).contains(byte) else { return nil }
            sum += Int(byte - 0x30) * weight
            weight = 4 - weight
        }
        return (10 - sum % 10) % 10
    }

    /// True when `code` is all digits and its last digit is the right check digit.
    public static func hasValidCheckDigit(_ code: some StringProtocol) -> Bool {
        guard code.count >= 2, let lastChar = code.last, lastChar.isASCII, let last = lastChar.wholeNumberValue,
              let expected = checkDigit(forData: code.dropLast()) else { return false }
        return last == expected
    }

    /// The GTIN-14 form (left-padded with zeros) of a GTIN-8, -12, -13 or -14 with a valid check digit.
    public static func gtin14(_ code: some StringProtocol) -> String? {
        guard lengths.contains(code.count), hasValidCheckDigit(code) else { return nil }
        return padded(code)
    }
}
