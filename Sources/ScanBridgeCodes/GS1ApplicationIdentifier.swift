/// A GS1 Application Identifier (AI): the 2–4 digit prefix that says what the data after
/// it means and what shape it has (GS1 General Specifications §3; https://ref.gs1.org/ai/).
///
/// The shape is written in GS1's own format notation, e.g. `N14`, `X..20`, `N13[+X..17]`,
/// so each table row can be read against the GS1 table; the components are derived from it.
public struct GS1ApplicationIdentifier: Sendable, Hashable {
    /// The characters a component may hold.
    public enum CharacterSet: Sendable, Hashable {
        /// `N`: the digits 0–9.
        case digits
        /// `X`: GS1 AI encodable character set 82 (§7.11 figure 7.11-1): letters, digits
        /// and ``!"%&'()*+,-./:;<=>?_``.
        case cset82
        /// `Y`: GS1 AI encodable character set 39 (figure 7.11-2): A–Z, digits, `#`, `-`, `/`.
        case cset39
    }

    /// One `+`-separated part of a format: `N6` is fixed, `X..20` is 1 to 20 characters,
    /// and a part in brackets (`[+N6]`) may be left out.
    public struct Component: Sendable, Hashable {
        public let characters: CharacterSet
        public let length: ClosedRange<Int>
        public let isOptional: Bool
    }

    /// How a date AI's digits are laid out. Day 00 means the last day of the month (§7.12).
    public enum DateFormat: Sendable, Hashable {
        /// `YYMMDD`.
        case date
        /// `YYMMDD` then hour, minute and second as far as the value goes (7003, 7011, 8008).
        case dateTime
        /// `YYMMDD`, optionally followed by a second `YYMMDD` ending the range (7007).
        case dateRange
    }

    /// The AI itself, e.g. `01` or `3103`.
    public let code: String
    /// GS1's data title, e.g. `GTIN`, `BATCH/LOT`, `NET WEIGHT (kg)`.
    public let title: String
    /// GS1's format of the data, without the AI: `N14`, `X..20`, `N13[+X..17]`.
    public let format: String
    public let components: [Component]
    /// True when the first component ends with a GS1 check digit (§7.9.1): SSCC, GTIN, GLN, …
    public let hasCheckDigit: Bool
    public let dateFormat: DateFormat?
    /// Implied decimal places of a measure or amount (the last digit of 310n, 392n, …).
    public let decimals: Int?

    /// The fewest characters the data may have.
    public var minLength: Int { components.reduce(0) { $0 + ($1.isOptional ? 0 : $1.length.lowerBound) } }
    /// The most characters the data may have.
    public var maxLength: Int { components.reduce(0) { $0 + $1.length.upperBound } }
    /// True when the data always has the same length, so no separator has to follow it.
    public var isFixedLength: Bool { minLength == maxLength }
    /// True when the data is all digits.
    public var isNumeric: Bool { components.allSatisfy { $0.characters == .digits } }

    /// A table row. `format` is trusted: a malformed one is a programming error in the table.
    init(
        _ code: String, _ format: String, _ title: String, check: Bool = false,
        date: DateFormat? = nil, decimals: Int? = nil
    ) {
        self.code = code
        self.title = title
        self.format = format
        var components: [Component] = []
        var optional = false  // everything after a `[` may be left out
        for part in format.split(separator: "+") {
            components.append(Self.component(part, isOptional: optional))
            optional = optional || part.contains("[")
        }
        self.components = components
        self.hasCheckDigit = check
        self.dateFormat = date
        self.decimals = decimals
    }

    /// Parses one part of a format: `N6`, `X..20`; brackets around it are ignored here.
    private static func component(_ spec: Substring, isOptional: Bool) -> Component {
        let body = spec.filter { $0 != "[" && $0 != "]" }
        let characters: CharacterSet =
            switch body.first {
            case "N": .digits
            case "X": .cset82
            case "Y": .cset39
            default: fatalError("GS1 AI table: bad format part '\(spec)'")
            }
        let isVariable = body.dropFirst().hasPrefix("..")
        guard let count = Int(body.dropFirst(isVariable ? 3 : 1)), count > 0 else {
            fatalError("GS1 AI table: bad format part '\(spec)'")
        }
        return Component(characters: characters, length: (isVariable ? 1 : count)...count, isOptional: isOptional)
    }
}

extension GS1ApplicationIdentifier {
    /// The AI with exactly this code.
    public static func lookup(_ code: some StringProtocol) -> GS1ApplicationIdentifier? {
        byCode[String(code)]
    }

    /// The AI `text` starts with. An AI's length follows from its first two digits, so no AI
    /// is the start of another and the match is unambiguous.
    public static func lookup(prefixOf text: some StringProtocol) -> GS1ApplicationIdentifier? {
        // The code's characters only: counting all of `text` would walk the rest of the element string.
        guard let length = codeLength(startOf: text) else { return nil }
        let code = text.prefix(length)
        guard code.count == length else { return nil }
        return byCode[String(code)]
    }

    /// How many digits an AI starting like `text` has, from its first two digits (the
    /// GS1 "AI length by prefix" rule, as in GS1's gs1-syntax-engine `AIlengthByPrefix`);
    /// nil when no AI starts that way.
    static func codeLength(startOf text: some StringProtocol) -> Int? {
        guard let tens = text.first.flatMap(ASCII.digit),
            let units = text.dropFirst().first.flatMap(ASCII.digit)
        else { return nil }
        return switch tens * 10 + units {
        case 0...4, 10...22, 30, 37, 90...99: 2
        case 23...25, 40...42, 71: 3
        case 31...36, 39, 43, 70, 72, 80...82: 4
        default: nil
        }
    }

    private static let byCode: [String: GS1ApplicationIdentifier] =
        Dictionary(all.map { ($0.code, $0) }, uniquingKeysWith: { first, _ in first })
}
