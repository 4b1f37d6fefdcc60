import Foundation

/// The origins an access token may be used from, checked and written as a browser writes
/// them in its `Origin` header (RFC 6454): `scheme://host[:port]`, lowercase, no path, and
/// no port when it is the scheme's default. The gateway compares origins as strings, so one
/// written otherwise (`https://POS.example:443/`) would never match.
package enum TokenOrigin {
    /// Why a text is not an origin, for a person to fix.
    package struct Problem: Error, Sendable {
        package let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    /// Longest origin accepted, in bytes.
    package static let maxBytes = 256

    /// The origin in a browser's form; throws why `text` is not one.
    package static func normalized(_ text: String) throws(Problem) -> String {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { throw Problem("an origin may not be empty") }
        guard bytes.count <= maxBytes else { throw Problem("an origin may have at most \(maxBytes) bytes") }
        guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw Problem(
                "'\(printable(text))' has spaces, control or non-ASCII characters; write an international host name in its xn-- form"
            )
        }
        let lower = text.lowercased()
        guard let separator = lower.range(of: "://") else {
            throw Problem("'\(text)' is not scheme://host[:port], e.g. https://pos.example.com")
        }
        let scheme = String(lower[..<separator.lowerBound])
        let authority = String(lower[separator.upperBound...])
        guard let first = scheme.utf8.first, isLetter(first),
            scheme.utf8.allSatisfy({
                isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".")
            })
        else {
            throw Problem("'\(text)' has no valid scheme; write it as https://host[:port]")
        }
        guard !authority.contains(where: { "/?#".contains($0) }) else {
            throw Problem(
                "'\(text)' has a path, query or fragment; an origin is scheme://host[:port] alone, without even a trailing /")
        }
        guard !authority.contains("@") else {
            throw Problem("'\(text)' has a user name; an origin is scheme://host[:port] alone")
        }
        let (host, portText): (String, String?)
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw Problem("'\(text)' has an unclosed [ in its host") }
            host = String(authority[...close])
            let rest = authority[authority.index(after: close)...]
            guard rest.isEmpty || rest.hasPrefix(":") else { throw Problem("'\(text)' has text after its host") }
            portText = rest.isEmpty ? nil : String(rest.dropFirst())
            let inside = host.utf8.dropFirst().dropLast()
            guard !inside.isEmpty, inside.allSatisfy({ isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") })
            else {
                throw Problem("'\(text)' has no valid IPv6 address in its [ ]")
            }
        } else {
            let parts = authority.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count <= 2 else { throw Problem("'\(text)' has more than one ':' after its host") }
            host = String(parts[0])
            portText = parts.count == 2 ? String(parts[1]) : nil
            guard !host.isEmpty, !host.hasPrefix("."), !host.hasPrefix("-"),
                host.utf8.allSatisfy({
                    isLetter($0) || isDigit($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_")
                })
            else {
                throw Problem("'\(text)' has no valid host name")
            }
        }
        guard let portText else { return ("\(scheme)://\(host)") }
        guard !portText.isEmpty, portText.utf8.count <= 5, portText.utf8.allSatisfy(isDigit), let port = Int(portText),
            (1...65535).contains(port)
        else {
            throw Problem("'\(text)' has no valid port: a number from 1 to 65535")
        }
        if (scheme == "http" && port == 80) || (scheme == "https" && port == 443) {
            return ("\(scheme)://\(host)")
        }
        return ("\(scheme)://\(host):\(port)")
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) }
    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
    private static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }

    /// `text` with anything unprintable replaced, so an error message cannot carry control bytes.
    private static func printable(_ text: String) -> String {
        String(text.prefix(64).unicodeScalars.map { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F ? Character($0) : "?" })
    }
}
