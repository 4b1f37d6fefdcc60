extension VariableMeasure {
    /// One GS1 Member Organisation's layouts for restricted-circulation numbers: GTIN-13
    /// prefixes 02 and 20–29 mean what each country decides (GS1 General Specifications
    /// §2.1.11–2.1.12). Layouts follow biip `rcn.py`, which cites each organisation's
    /// documents. Build a `Region` for other countries. A price in pence, cents or øre is
    /// a layout without decimals: minor units of whatever currency the store has, so the
    /// same label reads 12.34 GBP, 1234 JPY or 1.234 KWD.
    public struct Region: Sendable, Hashable {
        /// ISO 3166-1 alpha-2, e.g. `GB`.
        public let code: String
        /// Layouts by two-digit prefix; prefixes not here are not variable-measure codes.
        public let layouts: [String: Layout]

        public init(code: String, layouts: [String: Layout]) {
            self.code = code
            self.layouts = layouts
        }

        /// GS1 UK: prefix 20 carries a price in pence with a price check digit. (No GB
        /// layout is known for 02, so it is not read as a variable measure.)
        public static let gb = Region(code: "GB", layouts: ["20": Layout("PPPPPPPCVVVV", .price)])

        /// GS1 Germany: 22–23 price in cents, 28–29 weight in grams, with a 5-digit price
        /// check digit. 25–26 carry a count, which ``Value`` has no case for, so they are
        /// not read.
        public static let de = Region(
            code: "DE",
            layouts: [
                "22": Layout("PPPPPPCVVVVV", .price),
                "23": Layout("PPPPPPCVVVVV", .price),
                "28": Layout("PPPPPPCVVVVV", .weight, decimals: 3),
                "29": Layout("PPPPPPCVVVVV", .weight, decimals: 3),
            ])

        /// GS1 Sweden: 20–22 price in öre (minor units), with 1 decimal, with none; 23–25
        /// weight in kg with 3, 2, 1 decimals; no price check digit.
        public static let se = Region(code: "SE", layouts: nordic)

        /// Norway publishes no layout; biip found Norwegian packs follow the Swedish one.
        public static let no = Region(code: "NO", layouts: nordic)

        /// GS1 Denmark: 21–24 price in øre, 26–28 weight in grams, no price check digit.
        /// The patterns (six value digits, five for 27) are biip's, from GS1 Denmark's
        /// GTIN-13 pris/vægt pages.
        public static let dk = Region(
            code: "DK",
            layouts: [
                "21": Layout("PPPPPPVVVVVV", .price),
                "22": Layout("PPPPPPVVVVVV", .price),
                "23": Layout("PPPPPPVVVVVV", .price),
                "24": Layout("PPPPPPVVVVVV", .price),
                "26": Layout("PPPPPPVVVVVV", .weight, decimals: 3),
                "27": Layout("PPPPPPPVVVVV", .weight, decimals: 3),
                "28": Layout("PPPPPPVVVVVV", .weight, decimals: 3),
            ])

        /// GS1 US: a UPC-A of number system 2, `2 IIIII C PPPP K`, read as the EAN-13 with a
        /// leading 0 (prefix 02): a 5-digit item reference, a price check digit, and a 4-digit
        /// price in cents. Stores whose scales print a 5-digit price without the check digit
        /// configure that layout for 02 instead (`catalog.variable_measure`).
        public static let us = Region(code: "US", layouts: ["02": Layout("PPPPPPPCVVVV", .price)])

        /// GS1 Canada uses the UPC-A number-system-2 layout of GS1 US.
        public static let ca = Region(code: "CA", layouts: us.layouts)

        /// France: 21–24 a price in cents, 25–28 a weight in grams, each after a 5-digit item
        /// reference and without a price check digit, the layout French scales print by
        /// default. biip has no French rules; this was not checked against GS1 France's own
        /// guide, so a store whose labels differ configures its layouts.
        public static let fr = Region(
            code: "FR",
            layouts: [
                "21": Layout("PPPPPPPVVVVV", .price),
                "22": Layout("PPPPPPPVVVVV", .price),
                "23": Layout("PPPPPPPVVVVV", .price),
                "24": Layout("PPPPPPPVVVVV", .price),
                "25": Layout("PPPPPPPVVVVV", .weight, decimals: 3),
                "26": Layout("PPPPPPPVVVVV", .weight, decimals: 3),
                "27": Layout("PPPPPPPVVVVV", .weight, decimals: 3),
                "28": Layout("PPPPPPPVVVVV", .weight, decimals: 3),
            ])

        /// The Netherlands: 22–23 a price in cents, 28–29 a weight in grams, each after a
        /// 5-digit item reference and without a price check digit. biip has no Dutch rules;
        /// this was not checked against GS1 Nederland's own guide, so a store whose labels
        /// differ configures its layouts.
        public static let nl = Region(
            code: "NL",
            layouts: [
                "22": Layout("PPPPPPPVVVVV", .price),
                "23": Layout("PPPPPPPVVVVV", .price),
                "28": Layout("PPPPPPPVVVVV", .weight, decimals: 3),
                "29": Layout("PPPPPPPVVVVV", .weight, decimals: 3),
            ])

        public static let all: [Region] = [.gb, .de, .se, .no, .dk, .us, .ca, .fr, .nl]

        /// The prefixes whose meaning a GS1 Member Organisation decides (GS1 General
        /// Specifications §2.1.11): 02 (a UPC-A of number system 2 read as an EAN-13) and
        /// 20–29. Any other prefix belongs to a company's GTINs, which a layout must never read.
        public static let restrictedPrefixes: [String] = ["02"] + (20...29).map(String.init)

        /// This region with `layouts` added, each replacing the built-in layout of its prefix,
        /// or with `layouts` alone when `replacing` the built-in ones.
        public func with(_ layouts: [String: Layout], replacing: Bool) -> Region {
            Region(code: code, layouts: replacing ? layouts : self.layouts.merging(layouts) { _, configured in configured })
        }

        /// The built-in region with this code, in either case.
        public static func named(_ code: String) -> Region? {
            all.first { $0.code == code.uppercased() }
        }

        private static let nordic: [String: Layout] = [
            "20": Layout("PPPPPPPPVVVV", .price),
            "21": Layout("PPPPPPPPVVVV", .price, decimals: 1),
            "22": Layout("PPPPPPPPVVVV", .price, decimals: 0),
            "23": Layout("PPPPPPPPVVVV", .weight, decimals: 3),
            "24": Layout("PPPPPPPPVVVV", .weight, decimals: 2),
            "25": Layout("PPPPPPPPVVVV", .weight, decimals: 1),
        ]
    }
}
