/// The field separators a CSV file may use, and how one is told from the header line.
///
/// Spreadsheets write CSV with the list separator of their locale: a comma in English, a
/// semicolon where the comma is the decimal mark (French, German), a tab when saved as
/// "Unicode text". The header line names the columns and holds no numbers, so the separator
/// it uses most, outside quotes, is the file's.
public enum CSVDelimiter: String, Sendable, Hashable, CaseIterable {
    case comma, semicolon, tab

    /// The byte that separates fields.
    public var byte: UInt8 {
        switch self {
        case .comma: UInt8(ascii: ",")
        case .semicolon: UInt8(ascii: ";")
        case .tab: UInt8(ascii: "\t")
        }
    }

    /// `,`, `;`, `\t` or the names, as `--delimiter` takes them.
    public init?(argument: String) {
        switch argument.lowercased() {
        case ",", "comma": self = .comma
        case ";", "semicolon": self = .semicolon
        case "\t", "\\t", "tab": self = .tab
        default: return nil
        }
    }

    /// How a message names a delimiter byte: `a comma`.
    static func name(of byte: UInt8) -> String {
        switch byte {
        case UInt8(ascii: ","): "a comma"
        case UInt8(ascii: ";"): "a semicolon"
        case UInt8(ascii: "\t"): "a tab"
        default: describeByte(byte)
        }
    }

    /// The header line's delimiter, found in `bytes` (the start of the input, after any byte
    /// order mark): the candidate seen most often outside quotes before the first line break
    /// outside quotes; a comma when there is none or a tie. Nil while the line is incomplete
    /// and more input may come; after `maxHeaderBytes`, decided on what was seen.
    static func detect(in bytes: ArraySlice<UInt8>, isComplete: Bool) -> UInt8? {
        var counts: [UInt8: Int] = [:]
        var inQuotes = false
        var sawText = false
        for byte in bytes.prefix(maxHeaderBytes) {
            switch byte {
            case UInt8(ascii: "\""):
                inQuotes.toggle()
                sawText = true
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                // Empty lines before the header are skipped, as the reader skips them.
                if !inQuotes, sawText { return choice(counts) }
            default:
                sawText = true
                if !inQuotes, allCases.contains(where: { $0.byte == byte }) { counts[byte, default: 0] += 1 }
            }
        }
        return isComplete || bytes.count >= maxHeaderBytes ? choice(counts) : nil
    }

    /// A header line longer than this is not waited for to its end.
    static let maxHeaderBytes = 64 * 1024

    private static func choice(_ counts: [UInt8: Int]) -> UInt8 {
        // In the order of the cases, so a tie goes to the comma.
        var best = CSVDelimiter.comma.byte
        var bestCount = 0
        for candidate in allCases {
            let count = counts[candidate.byte, default: 0]
            if count > bestCount {
                best = candidate.byte
                bestCount = count
            }
        }
        return best
    }
}
