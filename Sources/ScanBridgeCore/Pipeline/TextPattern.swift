import ScanBridgeModel

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A pattern that scanned texts are matched against: a POSIX extended regular expression
/// compiled by the C library (`regcomp`), with `(?i)` at its start for a match without
/// regard to case. Back-references are refused, so matching a text takes time bounded by
/// the sizes of the text and the pattern: a pattern a client sends cannot stall the daemon.
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
