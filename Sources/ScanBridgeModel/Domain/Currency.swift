/// ISO 4217 currency codes and their minor units: a price in an unknown currency is refused,
/// not stored, and every amount has exactly its currency's decimals.
///
/// The table is ISO 4217 list one (current currencies), as its maintenance agency (SIX)
/// published it on 1 January 2026: the currencies a shop prices in, without the fund codes
/// (BOV, CHE, CHW, CLF, COU, MXV, USN, UYI, UYW) and the units of account, which no till
/// takes. ANG and BGN are not in it: XCG and EUR replaced them, so a new price in them is
/// refused, while one stored earlier still reads (see ``Money/decimals``).
public enum Currency {
    /// The currency a catalog uses when its configuration names none.
    public static let defaultCode = "GBP"

    /// The active ISO 4217 codes.
    public static let codes: Set<String> = [
        "AED", "AFN", "ALL", "AMD", "AOA", "ARS", "AUD", "AWG", "AZN", "BAM", "BBD", "BDT", "BHD",
        "BIF", "BMD", "BND", "BOB", "BRL", "BSD", "BTN", "BWP", "BYN", "BZD", "CAD", "CDF", "CHF",
        "CLP", "CNY", "COP", "CRC", "CUP", "CVE", "CZK", "DJF", "DKK", "DOP", "DZD", "EGP", "ERN",
        "ETB", "EUR", "FJD", "FKP", "GBP", "GEL", "GHS", "GIP", "GMD", "GNF", "GTQ", "GYD", "HKD",
        "HNL", "HTG", "HUF", "IDR", "ILS", "INR", "IQD", "IRR", "ISK", "JMD", "JOD", "JPY", "KES",
        "KGS", "KHR", "KMF", "KPW", "KRW", "KWD", "KYD", "KZT", "LAK", "LBP", "LKR", "LRD", "LSL",
        "LYD", "MAD", "MDL", "MGA", "MKD", "MMK", "MNT", "MOP", "MRU", "MUR", "MVR", "MWK", "MXN",
        "MYR", "MZN", "NAD", "NGN", "NIO", "NOK", "NPR", "NZD", "OMR", "PAB", "PEN", "PGK", "PHP",
        "PKR", "PLN", "PYG", "QAR", "RON", "RSD", "RUB", "RWF", "SAR", "SBD", "SCR", "SDG", "SEK",
        "SGD", "SHP", "SLE", "SOS", "SRD", "SSP", "STN", "SVC", "SYP", "SZL", "THB", "TJS", "TMT",
        "TND", "TOP", "TRY", "TTD", "TWD", "TZS", "UAH", "UGX", "USD", "UYU", "UZS", "VED", "VES",
        "VND", "VUV", "WST", "XAF", "XCD", "XCG", "XOF", "XPF", "YER", "ZAR", "ZMW", "ZWG",
    ]

    /// The codes of `codes` whose minor unit is 0 (the yen has no subdivision in use).
    static let noDecimals: Set<String> = [
        "BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "VND", "VUV",
        "XAF", "XOF", "XPF",
    ]

    /// The codes of `codes` whose minor unit is 3 (1000 fils to the dinar). Every other code
    /// of `codes` has 2.
    static let threeDecimals: Set<String> = ["BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"]

    /// The codes with 0 and with 3 decimals as the migrations of stored amounts from
    /// hundredths to minor units convert them (the counter's `v8-money-minor-units`, the
    /// shop's store's version 7). Frozen: a migration does the same on every database, so a
    /// currency whose minor unit changes in the table above needs a migration of its own.
    package static let migratedNoDecimals = [
        "BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "VND", "VUV", "XAF", "XOF", "XPF",
    ]
    package static let migratedThreeDecimals = ["BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"]

    /// Codes ISO 4217 lists with no minor unit: precious metals, the SDR and other units of
    /// account, the testing and "no currency" codes. Nothing at a till is priced in them,
    /// and an amount of one has no decimals to hold it in; named so that the refusal says so.
    static let withoutMinorUnit: Set<String> = [
        "XAG", "XAU", "XBA", "XBB", "XBC", "XBD", "XDR", "XPD", "XPT", "XSU", "XTS", "XUA", "XXX",
    ]

    /// The ISO 4217 minor unit of `code` (upper case): how many decimals its amounts have,
    /// 0 for JPY, 2 for GBP, 3 for KWD. Nil for a code not in `codes`.
    public static func minorUnit(of code: String) -> Int? {
        guard codes.contains(code) else { return nil }
        if noDecimals.contains(code) { return 0 }
        return threeDecimals.contains(code) ? 3 : 2
    }

    /// The code in upper case, when it is an ISO 4217 currency with a minor unit.
    public static func validated(_ text: String, field: String) throws(ScanBridgeError) -> String {
        let code = text.uppercased()
        if withoutMinorUnit.contains(code) {
            throw .invalidParams(
                "\(field): \(code) has no minor unit in ISO 4217, so no amount can be priced in it; "
                    + "give a currency such as GBP or EUR", field: field)
        }
        guard codes.contains(code) else {
            throw .invalidParams(
                "\(field) must be an ISO 4217 currency code such as GBP or EUR; '\(text)' is not one", field: field)
        }
        return code
    }
}
