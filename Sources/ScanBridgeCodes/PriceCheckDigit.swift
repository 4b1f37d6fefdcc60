/// The check digit over the price or weight inside a variable-measure code (GS1 General
/// Specifications §7.9.3 for four digits, §7.9.4 for five). It catches a misread value
/// that the final EAN-13 check digit alone could let through.
public enum PriceCheckDigit {
    // Weighting factor tables (§7.9.2), indexed by the digit: digit × factor reduced to one
    // digit, the units digit plus (+) or minus (−) the tens digit, mod 10; 3 keeps the units.
    private static let twoMinus = [0, 2, 4, 6, 8, 9, 1, 3, 5, 7]
    private static let three = [0, 3, 6, 9, 2, 5, 8, 1, 4, 7]
    private static let fivePlus = [0, 5, 1, 6, 2, 7, 3, 8, 4, 9]
    private static let fiveMinus = [0, 5, 9, 4, 8, 3, 7, 2, 6, 1]

    /// The check digit of a 4-digit value: weights 2−, 2−, 3, 5−; the sum times 3, mod 10.
    /// Nil unless `value` is four ASCII digits.
    public static func fourDigit(_ value: some StringProtocol) -> Int? {
        guard let d = digits(value, count: 4) else { return nil }
        return (twoMinus[d[0]] + twoMinus[d[1]] + three[d[2]] + fiveMinus[d[3]]) * 3 % 10
    }

    /// The check digit of a 5-digit value: weights 5+, 2−, 5−, 5+, 2−; the sum is taken
    /// from the next multiple of 10, and the check digit is the digit whose 5− product
    /// is that result. Nil unless `value` is five ASCII digits.
    public static func fiveDigit(_ value: some StringProtocol) -> Int? {
        guard let d = digits(value, count: 5) else { return nil }
        let sum = fivePlus[d[0]] + twoMinus[d[1]] + fiveMinus[d[2]] + fivePlus[d[3]] + twoMinus[d[4]]
        return fiveMinus.firstIndex(of: (10 - sum % 10) % 10)
    }

    /// The check digit of a 4- or 5-digit value; nil for other lengths.
    static func forValue(_ value: some StringProtocol) -> Int? {
        value.count == 5 ? fiveDigit(value) : fourDigit(value)
    }

    private static func digits(_ value: some StringProtocol, count: Int) -> [Int]? {
        let digits = value.compactMap(ASCII.digit)
        return value.count == count && digits.count == count ? digits : nil
    }
}
