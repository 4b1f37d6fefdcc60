extension VariableMeasure {
    /// One GS1 Member Organisation's layouts for restricted-circulation numbers: GTIN-13
    /// prefixes 02 and 20–29 mean what each country decides (GS1 General Specifications
    /// §2.1.11–2.1.12). Layouts follow biip `rcn.py`, which cites each organisation's
    /// documents. Build a `Region` for other countries.
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
        public static let gb = Region(code: "GB", layouts: ["20": Layout("PPPPPPPCVVVV", .price, decimals: 2)])

        /// GS1 Germany: 22–23 price in cents, 28–29 weight in grams, with a 5-digit price
        /// check digit. 25–26 carry a count, which ``Value`` has no case for, so they are
        /// not read.
        public static let de = Region(
            code: "DE",
            layouts: [
                "22": Layout("PPPPPPCVVVVV", .price, decimals: 2),
                "23": Layout("PPPPPPCVVVVV", .price, decimals: 2),
                "28": Layout("PPPPPPCVVVVV", .weight, decimals: 3),
                "29": Layout("PPPPPPCVVVVV", .weight, decimals: 3),
            ])

        /// GS1 Sweden: 20–22 price with 2, 1, 0 decimals; 23–25 weight in kg with 3, 2, 1
        /// decimals; no price check digit.
        public static let se = Region(code: "SE", layouts: nordic)

        /// Norway publishes no layout; biip found Norwegian packs follow the Swedish one.
        public static let no = Region(code: "NO", layouts: nordic)

        /// GS1 Denmark: 21–24 price in øre, 26–28 weight in grams, no price check digit.
        /// The patterns (six value digits, five for 27) are biip's, from GS1 Denmark's
        /// GTIN-13 pris/vægt pages.
        public static let dk = Region(
            code: "DK",
            layouts: [
                "21": Layout("PPPPPPVVVVVV", .price, decimals: 2),
                "22": Layout("PPPPPPVVVVVV", .price, decimals: 2),
                "23": Layout("PPPPPPVVVVVV", .price, decimals: 2),
                "24": Layout("PPPPPPVVVVVV", .price, decimals: 2),
                "26": Layout("PPPPPPVVVVVV", .weight, decimals: 3),
                "27": Layout("PPPPPPPVVVVV", .weight, decimals: 3),
                "28": Layout("PPPPPPVVVVVV", .weight, decimals: 3),
            ])

        public static let all: [Region] = [.gb, .de, .se, .no, .dk]

        /// The built-in region with this code, in either case.
        public static func named(_ code: String) -> Region? {
            all.first { $0.code == code.uppercased() }
        }

        private static let nordic: [String: Layout] = [
            "20": Layout("PPPPPPPPVVVV", .price, decimals: 2),
            "21": Layout("PPPPPPPPVVVV", .price, decimals: 1),
            "22": Layout("PPPPPPPPVVVV", .price, decimals: 0),
            "23": Layout("PPPPPPPPVVVV", .weight, decimals: 3),
            "24": Layout("PPPPPPPPVVVV", .weight, decimals: 2),
            "25": Layout("PPPPPPPPVVVV", .weight, decimals: 1),
        ]
    }
}
