import ScanBridgeModel

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A pattern that whole scanned texts are matched against: a POSIX extended regular
/// expression compiled by the C library (`regcomp`), with `(?i)` at its start for a match
/// without regard to case.
///
/// Why not Swift's `Regex`: one configured pattern would keep its parser's and engine's code
/// resident in the daemon, and every scan of a plain label is matched. The C library is
/// mapped anyway (docs/architecture.md, Design decisions).
public final class TextPattern: Sendable, CustomStringConvertible {
    public struct InvalidPattern: Error, CustomStringConvertible {
        public let description: String
    }

    public let source: String
    /// Compiled once, never changed: `regexec` is thread-safe on it (glibc: MT-Safe).
    private nonisolated(unsafe) let compiled: UnsafeMutablePointer<regex_t>

    public init(_ source: String) throws(InvalidPattern) {
        var body = Substring(source)
        var flags = REG_EXTENDED | REG_NOSUB
        if body.hasPrefix("(?i)") {
            body = body.dropFirst(4)
            flags |= REG_ICASE
        }
        guard !body.isEmpty else { throw InvalidPattern(description: "the pattern '\(source)' is empty") }
        compiled = .allocate(capacity: 1)
        // Anchored: the whole text must match, not a part of it.
        let status = regcomp(compiled, "^(\(body))$", flags)
        guard status == 0 else {
            var message = [CChar](repeating: 0, count: 256)
            regerror(status, compiled, &message, message.count)
            compiled.deallocate()
            let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw InvalidPattern(description: "'\(source)' is not a POSIX extended regular expression: \(reason)")
        }
        self.source = source
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
