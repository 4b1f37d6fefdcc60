/// The AI table: formats and data titles as in GS1's AI table (https://ref.gs1.org/ai/,
/// as pulled by biip `_application_identifiers.json`). Retail, logistics and healthcare
/// AIs are here; the 43xx shipping-label and 7250–7259 patient AIs are left out for now
/// and are reported as unknown.
extension GS1ApplicationIdentifier {
    /// Every AI this bridge knows.
    public static let all: [GS1ApplicationIdentifier] = keysAndDates + measures + amounts + logistics + companyInternal

    private static let keysAndDates: [GS1ApplicationIdentifier] = [
        .init("00", "N18", "SSCC", check: true),
        .init("01", "N14", "GTIN", check: true),
        .init("02", "N14", "CONTENT", check: true),
        .init("03", "N14", "MTO GTIN", check: true),
        .init("10", "X..20", "BATCH/LOT"),
        .init("11", "N6", "PROD DATE", date: .date),
        .init("12", "N6", "DUE DATE", date: .date),
        .init("13", "N6", "PACK DATE", date: .date),
        .init("15", "N6", "BEST BEFORE or BEST BY", date: .date),
        .init("16", "N6", "SELL BY", date: .date),
        .init("17", "N6", "USE BY or EXPIRY", date: .date),
        .init("20", "N2", "VARIANT"),
        .init("21", "X..20", "SERIAL"),
        .init("22", "X..20", "CPV"),
        .init("235", "X..28", "TPX"),
        .init("240", "X..30", "ADDITIONAL ID"),
        .init("241", "X..30", "CUST. PART No."),
        .init("242", "N..6", "MTO VARIANT"),
        .init("243", "X..20", "PCN"),
        .init("250", "X..30", "SECONDARY SERIAL"),
        .init("251", "X..30", "REF. TO SOURCE"),
        .init("253", "N13[+X..17]", "GDTI", check: true),
        .init("254", "X..20", "GLN EXTENSION COMPONENT"),
        .init("255", "N13[+N..12]", "GCN", check: true),
        .init("30", "N..8", "VAR. COUNT"),
        .init("37", "N..8", "COUNT"),
    ]

    /// 310n–369n: six digits with n implied decimals (n = 0…5).
    private static let measures: [GS1ApplicationIdentifier] = [
        ("310", "NET WEIGHT (kg)"), ("311", "LENGTH (m)"), ("312", "WIDTH (m)"), ("313", "HEIGHT (m)"),
        ("314", "AREA (m²)"), ("315", "NET VOLUME (l)"), ("316", "NET VOLUME (m³)"),
        ("320", "NET WEIGHT (lb)"), ("321", "LENGTH (in)"), ("322", "LENGTH (ft)"), ("323", "LENGTH (yd)"),
        ("324", "WIDTH (in)"), ("325", "WIDTH (ft)"), ("326", "WIDTH (yd)"),
        ("327", "HEIGHT (in)"), ("328", "HEIGHT (ft)"), ("329", "HEIGHT (yd)"),
        ("330", "GROSS WEIGHT (kg)"), ("331", "LENGTH (m), log"), ("332", "WIDTH (m), log"),
        ("333", "HEIGHT (m), log"), ("334", "AREA (m²), log"), ("335", "VOLUME (l), log"),
        ("336", "VOLUME (m³), log"), ("337", "KG PER m²"),
        ("340", "GROSS WEIGHT (lb)"), ("341", "LENGTH (in), log"), ("342", "LENGTH (ft), log"),
        ("343", "LENGTH (yd), log"), ("344", "WIDTH (in), log"), ("345", "WIDTH (ft), log"),
        ("346", "WIDTH (yd), log"), ("347", "HEIGHT (in), log"), ("348", "HEIGHT (ft), log"),
        ("349", "HEIGHT (yd), log"),
        ("350", "AREA (in²)"), ("351", "AREA (ft²)"), ("352", "AREA (yd²)"),
        ("353", "AREA (in²), log"), ("354", "AREA (ft²), log"), ("355", "AREA (yd²), log"),
        ("356", "NET WEIGHT (t oz)"), ("357", "NET VOLUME (oz)"),
        ("360", "NET VOLUME (qt)"), ("361", "NET VOLUME (gal.)"), ("362", "VOLUME (qt), log"),
        ("363", "VOLUME (gal.), log"), ("364", "VOLUME (in³)"), ("365", "VOLUME (ft³)"), ("366", "VOLUME (yd³)"),
        ("367", "VOLUME (in³), log"), ("368", "VOLUME (ft³), log"), ("369", "VOLUME (yd³), log"),
    ].flatMap { family($0.0, "N6", $0.1, decimals: 0...5) }

    /// 390n–395n: amounts and prices with n implied decimals.
    private static let amounts: [GS1ApplicationIdentifier] =
        family("390", "N..15", "AMOUNT", decimals: 0...9)
        + family("391", "N3+N..15", "AMOUNT", decimals: 0...9)
        + family("392", "N..15", "PRICE", decimals: 0...9)
        + family("393", "N3+N..15", "PRICE", decimals: 0...9)
        + family("394", "N4", "PRCNT OFF", decimals: 0...3)
        + family("395", "N6", "PRICE/UoM", decimals: 0...5)

    private static let logistics: [GS1ApplicationIdentifier] =
        [
            .init("400", "X..30", "ORDER NUMBER"),
            .init("401", "X..30", "GINC"),
            .init("402", "N17", "GSIN", check: true),
            .init("403", "X..30", "ROUTE"),
            .init("410", "N13", "SHIP TO LOC", check: true),
            .init("411", "N13", "BILL TO", check: true),
            .init("412", "N13", "PURCHASE FROM", check: true),
            .init("413", "N13", "SHIP FOR LOC", check: true),
            .init("414", "N13", "LOC No.", check: true),
            .init("415", "N13", "PAY TO", check: true),
            .init("416", "N13", "PROD/SERV LOC", check: true),
            .init("417", "N13", "PARTY", check: true),
            .init("420", "X..20", "SHIP TO POST"),
            .init("421", "N3+X..9", "SHIP TO POST"),
            .init("422", "N3", "ORIGIN"),
            .init("423", "N3+N..12", "COUNTRY - INITIAL PROCESS"),
            .init("424", "N3", "COUNTRY - PROCESS"),
            .init("425", "N3+N..12", "COUNTRY - DISASSEMBLY"),
            .init("426", "N3", "COUNTRY - FULL PROCESS"),
            .init("427", "X..3", "ORIGIN SUBDIVISION"),
            .init("7001", "N13", "NSN"),
            .init("7002", "X..30", "MEAT CUT"),
            .init("7003", "N10", "EXPIRY TIME", date: .dateTime),
            .init("7004", "N..4", "ACTIVE POTENCY"),
            .init("7005", "X..12", "CATCH AREA"),
            .init("7006", "N6", "FIRST FREEZE DATE", date: .date),
            .init("7007", "N6[+N6]", "HARVEST DATE", date: .dateRange),
            .init("7008", "X..3", "AQUATIC SPECIES"),
            .init("7009", "X..10", "FISHING GEAR TYPE"),
            .init("7010", "X..2", "PROD METHOD"),
            .init("7011", "N6[+N4]", "TEST BY DATE", date: .dateTime),
            .init("7020", "X..20", "REFURB LOT"),
            .init("7021", "X..20", "FUNC STAT"),
            .init("7022", "X..20", "REV STAT"),
            .init("7023", "X..30", "GIAI - ASSEMBLY"),
        ] + (0...9).map { .init("703\($0)", "N3+X..27", "PROCESSOR # \($0)") } + [
            .init("7040", "N1+X3", "UIC+EXT"),
            .init("710", "X..20", "NHRN PZN"),
            .init("711", "X..20", "NHRN CIP"),
            .init("712", "X..20", "NHRN CN"),
            .init("713", "X..20", "NHRN DRN"),
            .init("714", "X..20", "NHRN AIM"),
            .init("715", "X..20", "NHRN NDC"),
            .init("716", "X..20", "NHRN AIC"),
        ] + (0...9).map { .init("723\($0)", "X2+X..28", "CERT # \($0)") } + [
            .init("7240", "X..20", "PROTOCOL"),
            .init("8001", "N14", "DIMENSIONS"),
            .init("8002", "X..20", "CMT No."),
            // GRAI: a 0, then 13 digits ending in a check digit; the leading 0 adds nothing to
            // the weighted sum, so checking all 14 digits is the same check.
            .init("8003", "N14[+X..16]", "GRAI", check: true),
            .init("8004", "X..30", "GIAI"),
            .init("8005", "N6", "PRICE PER UNIT"),
            .init("8006", "N14+N2+N2", "ITIP", check: true),
            .init("8007", "X..34", "IBAN"),
            .init("8008", "N8[+N..4]", "PROD TIME", date: .dateTime),
            .init("8009", "X..50", "OPTSEN"),
            .init("8010", "Y..30", "CPID"),
            .init("8011", "N..12", "CPID SERIAL"),
            .init("8012", "X..20", "VERSION"),
            // GMN's two check characters (mod 1021) are not verified.
            .init("8013", "X..25", "GMN"),
            .init("8017", "N18", "GSRN - PROVIDER", check: true),
            .init("8018", "N18", "GSRN - RECIPIENT", check: true),
            .init("8019", "N..10", "SRIN"),
            .init("8020", "X..25", "REF No."),
            .init("8026", "N14+N2+N2", "ITIP CONTENT", check: true),
            // GS1 gives 8110 and 8112 no data title; these come from their descriptions.
            .init("8110", "X..70", "COUPON CODE (North America)"),
            .init("8111", "N4", "POINTS"),
            .init("8112", "X..70", "POSITIVE OFFER FILE COUPON (North America)"),
            .init("8200", "X..70", "PRODUCT URL"),
        ]

    private static let companyInternal: [GS1ApplicationIdentifier] =
        [.init("90", "X..30", "INTERNAL")] + (91...99).map { .init("\($0)", "X..90", "INTERNAL") }

    /// `base0`…`base9`-style AIs whose last digit is the number of implied decimals.
    private static func family(
        _ base: String, _ format: String, _ title: String,
        decimals: ClosedRange<Int>
    ) -> [GS1ApplicationIdentifier] {
        decimals.map { .init(base + String($0), format, title, decimals: $0) }
    }
}
