import ScanBridgeModel

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A pattern that scanned texts are matched against: a POSIX extended regular expression
/// compiled by the C library (`regcomp`), with `(?i)` at its start for a match without
/// regard to case. Back-references are refused, so matching a text takes time bounded by
/// the sizes of the text and the pattern; and so are repetitions that would make the
/// compiled pattern huge (`maxCopies`), so compiling one is bounded too: a pattern a client
/// sends cannot stall the daemon, nor take its memory.
///
/// Why not Swift's `Regex`: it backtracks (a pattern like `(a*)*b` takes exponential time),
/// and one pattern would keep its parser's and engine's code resident in the daemon. The C
/// library is mapped anyway (docs/architecture.md, Design decisions).
public final class TextPattern: Sendable, CustomStringConvertible {
    public struct InvalidPattern: Error, CustomStringConvertible {
        public let description: String
    }

    /// How much of a text must match.
    public enum Extent: Sendable {
        /// All of it, as if the pattern began with `^` and ended with `$`.
        case wholeText
        /// Any part of it; `^` and `$` anchor to its start and end.
        case anywhere
    }

    /// The longest pattern accepted, in bytes.
    public static let maxLength = 1024

    /// The most copies of its parts a pattern's repetitions may make. glibc's `regcomp` copies
    /// the expression a bound repeats once per count (`(ab){3}` is `ababab`), nested bounds
    /// multiply, and its time and memory grow with the square of the copies: `a{1,32767}`,
    /// 11 bytes, takes 5 s and 4 GB; 1,000 copies take a few milliseconds and megabytes.
    public static let maxCopies = 1000

    public let source: String
    /// Compiled once, never changed: `regexec` is thread-safe on it (glibc: MT-Safe).
    private nonisolated(unsafe) let compiled: UnsafeMutablePointer<regex_t>

    public init(_ source: String, matching extent: Extent = .wholeText) throws(InvalidPattern) {
        var body = Substring(source)
        var flags = REG_EXTENDED | REG_NOSUB
        if body.hasPrefix("(?i)") {
            body = body.dropFirst(4)
            flags |= REG_ICASE
        }
        guard !body.isEmpty else { throw InvalidPattern(description: "the pattern '\(source)' is empty") }
        guard source.utf8.count <= Self.maxLength else {
            throw InvalidPattern(description: "the pattern is longer than \(Self.maxLength) bytes")
        }
        guard !Self.hasBackReference(body) else {
            throw InvalidPattern(description: "'\(source)' has a back-reference (\\1 to \\9), which is not supported")
        }
        guard Self.copies(body) <= Self.maxCopies else {
            throw InvalidPattern(
                description:
                    "'\(source)' repeats too much: its repetitions ({n,m}, nested ones multiplied) would make more than \(Self.maxCopies) copies of its parts"
            )
        }
        compiled = .allocate(capacity: 1)
        let status = regcomp(compiled, extent == .wholeText ? "^(\(body))$" : String(body), flags)
        guard status == 0 else {
            var message = [CChar](repeating: 0, count: 256)
            regerror(status, compiled, &message, message.count)
            compiled.deallocate()
            let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw InvalidPattern(description: "'\(source)' is not a POSIX extended regular expression: \(reason)")
        }
        self.source = source
    }

    /// A backslash before a digit, itself not escaped: matching one may take exponential time.
    private static func hasBackReference(_ body: Substring) -> Bool {
        var escaped = false
        for character in body {
            if escaped, character.isASCII, character.isNumber { return true }
            escaped = !escaped && character == "\\"
        }
        return false
    }

    /// How many copies of its parts `regcomp` would make of `body`, at least: every character,
    /// class and group counts once, a repetition multiplies what it repeats (`{n,m}` by `m`,
    /// `{n,}` by `n + 1`, `+` by two), alternatives add up. Past `maxCopies` the count stops
    /// growing, so no pattern overflows it; a malformed pattern is counted as far as it goes
    /// and then refused by `regcomp`.
    static func copies(_ body: Substring) -> Int {
        let limit = maxCopies + 1
        func times(_ a: Int, _ b: Int) -> Int {
            let (product, overflow) = a.multipliedReportingOverflow(by: b)
            return overflow ? limit : min(product, limit)
        }
        // Per open group: its finished alternatives and the one in progress.
        var groups: [(alternatives: Int, branch: Int)] = [(0, 0)]
        // What a repetition right here repeats: the last character, class or group.
        var last = 0
        func add(_ count: Int) {
            groups[groups.count - 1].branch = min(groups[groups.count - 1].branch + count, limit)
            last = count
        }
        func repeatLast(_ count: Int) {
            let repeated = times(last, count)
            groups[groups.count - 1].branch = min(groups[groups.count - 1].branch - last + repeated, limit)
            last = repeated
        }
        let bytes = Array(body.utf8)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\\"):
                index += 1
                add(1)
            case UInt8(ascii: "["):
                index = endOfBracket(bytes, from: index)
                add(1)
            case UInt8(ascii: "("):
                groups.append((0, 0))
                last = 0
            case UInt8(ascii: ")") where groups.count > 1:
                let group = groups.removeLast()
                add(min(group.alternatives + group.branch, limit))
            case UInt8(ascii: "|"):
                groups[groups.count - 1].alternatives = min(
                    groups[groups.count - 1].alternatives + groups[groups.count - 1].branch, limit)
                groups[groups.count - 1].branch = 0
                last = 0
            case UInt8(ascii: "*"), UInt8(ascii: "?"): repeatLast(1)
            case UInt8(ascii: "+"): repeatLast(2)
            case UInt8(ascii: "{"):
                guard let (count, end) = bound(bytes, from: index) else {
                    add(1)
                    continue
                }
                index = end
                repeatLast(max(count, 1))
            default: add(1)
            }
        }
        while groups.count > 1 {
            let group = groups.removeLast()
            add(min(group.alternatives + group.branch, limit))
        }
        return min(groups[0].alternatives + groups[0].branch, limit)
    }

    /// Where a bracket expression that opened before `start` ends: past its `]` (a `]` first,
    /// after `^` or not, is one of its characters; `[:alpha:]`, `[.a.]`, `[=a=]` hold theirs).
    private static func endOfBracket(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start
        if index < bytes.count, bytes[index] == UInt8(ascii: "^") { index += 1 }
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1 }
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: "]") { return index }
            if byte == UInt8(ascii: "["), index < bytes.count,
                [UInt8(ascii: ":"), UInt8(ascii: "."), UInt8(ascii: "=")].contains(bytes[index])
            {
                let kind = bytes[index]
                index += 1
                while index + 1 < bytes.count, !(bytes[index] == kind && bytes[index + 1] == UInt8(ascii: "]")) { index += 1 }
                index += 2
            }
        }
        return bytes.count
    }

    /// The copies a bound that opened before `start` makes (`{n}` and `{,m}` their number,
    /// `{n,m}` its larger, `{n,}` one more than `n`) and where it ends; nil when the `{`
    /// starts no bound.
    private static func bound(_ bytes: [UInt8], from start: Int) -> (count: Int, end: Int)? {
        func number(_ index: inout Int) -> Int? {
            var value: Int?
            while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                value = min((value ?? 0) * 10 + Int(bytes[index] - UInt8(ascii: "0")), maxCopies + 1)
                index += 1
            }
            return value
        }
        var index = start
        let low = number(&index)
        var high = low
        if index < bytes.count, bytes[index] == UInt8(ascii: ",") {
            index += 1
            high = number(&index) ?? (low ?? 0) + 1
        }
        guard low != nil || high != nil, index < bytes.count, bytes[index] == UInt8(ascii: "}") else { return nil }
        return (max(low ?? 0, high ?? 0), index + 1)
    }

    deinit {
        regfree(compiled)
        compiled.deallocate()
    }

    /// Whether all of `text` matches. A text with a NUL character never does.
    public func matches(_ text: some StringProtocol) -> Bool {
        guard !text.utf8.contains(0) else { return false }
        return String(text).withCString { regexec(compiled, $0, 0, nil, 0) == 0 }
    }

    public var description: String { source }
}
