import ScanBridgeModel
import Testing

@Suite("Money in its currency's minor unit")
struct MoneyTests {
    @Test(
        "an amount prints exactly its currency's ISO 4217 decimals",
        arguments: [
            (350, "GBP", "3.50"), (500, "JPY", "500"), (1250, "KWD", "1.250"), (5, "BHD", "0.005"), (-5, "GBP", "-0.05"),
            (0, "JPY", "0"), (0, "KWD", "0.000"), (1_000_000, "CLP", "1000000"),
            // A code ISO 4217 no longer lists reads as it was stored: hundredths.
            (199, "ANG", "1.99"),
        ] as [(Int64, String, String)])
    func prints(minorUnits: Int64, currency: String, amount: String) {
        #expect(Money(minorUnits: minorUnits, currency: currency).amount == amount)
    }

    @Test(
        "an input amount is read in minor units of its currency",
        arguments: [
            (JSONValue.string("3.50"), "GBP", 350), ("3.5", "GBP", 350), ("3", "GBP", 300), (" 3.5 ", "GBP", 350),
            ("500", "JPY", 500), ("0", "JPY", 0), ("1.250", "KWD", 1250), ("1.25", "KWD", 1250), ("0.005", "BHD", 5),
            (.int(500), "JPY", 500), (.double(500), "JPY", 500), (.double(1.25), "KWD", 1250), (.double(3.5), "GBP", 350),
            ("9999999999.999", "KWD", 9_999_999_999_999), ("9999999999", "JPY", 9_999_999_999), ("500.", "JPY", 500),
        ] as [(JSONValue, String, Int64)])
    func parses(value: JSONValue, currency: String, minorUnits: Int64) throws {
        #expect(try Money.parseAmount(value, currency: currency, field: "price") == minorUnits)
    }

    @Test(
        "more decimals than the currency has, a negative or a huge amount is refused, never rounded",
        arguments: [
            (JSONValue.string("1.005"), "EUR", "price has 3 decimals (1.005) but EUR has 2"),
            ("500.5", "JPY", "price has 1 decimal (500.5) but JPY has 0"),
            ("1.2505", "KWD", "price has 4 decimals (1.2505) but KWD has 3"),
            (.double(1.2505), "KWD", "price has 4 decimals (1.2505) but KWD has 3"),
            (.double(0.1 + 0.2), "GBP", "price has 17 decimals (0.30000000000000004) but GBP has 2"),
            ("-1", "GBP", "price must not be negative; got -1"),
            (.int(-1), "JPY", "price must not be negative; got -1"),
            ("10000000000", "JPY", "price is too large (10000000000)"),
            ("1e3", "JPY", "price must be an amount such as \"3.50\"; got '1e3'"),
            (.bool(true), "GBP", "price must be an amount such as \"3.50\", not a boolean"),
            ("1", "XAU", "price cannot be an amount of XAU, which has no minor unit in ISO 4217"),
        ] as [(JSONValue, String, String)])
    func refuses(value: JSONValue, currency: String, message: String) {
        let error = #expect(throws: ScanBridgeError.self) {
            try Money.parseAmount(value, currency: currency, field: "price")
        }
        #expect(error?.message == message, "\(value)")
        #expect(error?.field == "price")
    }

    @Test func theBoundIsOnTheAmountWhateverTheDecimals() {
        #expect(Money.maxMinorUnits(in: "JPY") == 9_999_999_999)
        #expect(Money.maxMinorUnits(in: "GBP") == 999_999_999_999)
        #expect(Money.maxMinorUnits(in: "KWD") == 9_999_999_999_999)
        // A price per kilogram of the largest amount, times a 5-digit weight in grams, fits.
        let perKg = Money(minorUnits: Money.maxMinorUnits(in: "KWD"), currency: "KWD")
        #expect(perKg.forWeight(grams: 99_999) != nil)
        #expect(perKg.forWeight(grams: 9_999_999_999_000) == nil, "a 10-digit weight in kg overflows: no price")
    }

    @Test(
        "a label's price is in the minor unit of the store's currency, or has the layout's decimals",
        arguments: [
            (1234, nil, "GBP", "12.34"), (1234, nil, "JPY", "1234"), (1234, nil, "KWD", "1.234"),
            (1234, 1, "SEK", "123.40"), (1234, 0, "SEK", "1234.00"), (1234, 0, "JPY", "1234"), (1234, 2, "KWD", "12.340"),
        ] as [(Int64, Int?, String, String)])
    func labelPrices(digits: Int64, decimals: Int?, currency: String, amount: String) {
        #expect(Money(label: digits, decimals: decimals, currency: currency)?.amount == amount)
    }

    @Test func aLabelWithMoreDecimalsThanTheCurrencyHasNoPrice() {
        #expect(Money(label: 1234, decimals: 2, currency: "JPY") == nil)
        #expect(Money(label: Int64.max, decimals: 0, currency: "KWD") == nil)
    }

    @Test(
        "a weight's price rounds half up to the currency's minor unit",
        arguments: [
            (990, "JPY", 250, "248"),  // 247.5 yen
            (989, "JPY", 250, "247"),  // 247.25 yen
            (1999, "KWD", 250, "0.500"),  // 0.49975 KWD
            (1198, "GBP", 250, "3.00"),  // 2.995 GBP
            (1196, "GBP", 250, "2.99"),  // 2.99 GBP
        ] as [(Int64, String, Int64, String)])
    func weights(perKg: Int64, currency: String, grams: Int64, amount: String) {
        #expect(Money(minorUnits: perKg, currency: currency).forWeight(grams: grams)?.amount == amount)
    }

    @Test func theTableIsISO4217sMinorUnits() throws {
        #expect(Currency.minorUnit(of: "GBP") == 2 && Currency.minorUnit(of: "EUR") == 2)
        #expect(Currency.minorUnit(of: "JPY") == 0 && Currency.minorUnit(of: "KRW") == 0 && Currency.minorUnit(of: "XOF") == 0)
        #expect(Currency.minorUnit(of: "KWD") == 3 && Currency.minorUnit(of: "TND") == 3 && Currency.minorUnit(of: "IQD") == 3)
        #expect(Currency.minorUnit(of: "XAU") == nil && Currency.minorUnit(of: "ANG") == nil)
        #expect(Currency.codes.contains("VED") && Currency.codes.contains("XCG") && !Currency.codes.contains("BGN"))
        #expect(Currency.codes.filter { Currency.minorUnit(of: $0) == 0 }.count == 16)
        #expect(Currency.codes.filter { Currency.minorUnit(of: $0) == 3 }.count == 7)
        #expect(try Currency.validated("kwd", field: "currency") == "KWD")
        for code in ["XAU", "xag", "XDR", "XXX"] {
            let error = #expect(throws: ScanBridgeError.self) { try Currency.validated(code, field: "currency") }
            #expect(error?.message.contains("has no minor unit in ISO 4217") == true, "\(code)")
            #expect(error?.field == "currency")
        }
    }
}
