import Foundation
package import ScanBridgeCore
import ScanBridgeModel

/// How a scanned or typed text names a repair order or a tagged device
/// (docs/protocol.md "Resolutions", `order-lookup`).
package enum OrderCode: Sendable, Hashable {
    /// An order id from a URL, a `repairminder://orders/…` link or `ORDER:…`.
    case order(String)
    /// A device tag: `…/devices/…`, `repairminder://devices/…` or `DEVICE:…`.
    case device(String)
    /// Plain text printed on the ticket (`RM-1001`).
    case reference(String)
    /// Meant as an order code but unusable (an empty or malformed id): the reason.
    case invalid(String)

    /// Reads `text`; nil when it does not name an order. Plain text counts as a reference only
    /// when it matches `references` (scans), or always when `references` is nil (typed lookups).
    package static func parse(_ text: String, references: TextPattern?) -> OrderCode? {
        // Every scan comes through here: plain byte comparisons before any Foundation parsing.
        let text = trimmed(text)
        if let rest = dropping("ORDER:", from: text) { return identifier(rest, OrderCode.order) }
        if let rest = dropping("DEVICE:", from: text) { return identifier(rest, OrderCode.device) }
        if text.utf8.contains(UInt8(ascii: ":")) {
            guard let url = URLComponents(string: String(text)), let scheme = url.scheme?.lowercased() else { return nil }
            return fromURL(url, scheme: scheme)
        }
        guard !text.isEmpty, text.utf8.count <= 64, !text.utf8.contains(where: { $0 <= 0x20 || $0 == 0x7F }) else { return nil }
        if let references, !references.matches(text) { return nil }
        return .reference(String(text))
    }

    /// `text` after `prefix`, compared without regard to case; nil when it does not start so.
    private static func dropping(_ prefix: String, from text: Substring) -> Substring? {
        let head = text.utf8.prefix(prefix.utf8.count)
        guard head.count == prefix.utf8.count,
            // The closure's types written out: Swift 6.2's type checker gives up on it without.
            zip(head, prefix.utf8).allSatisfy({ (byte: UInt8, wanted: UInt8) -> Bool in
                byte == wanted || byte == wanted + 32 && wanted >= 0x41 && wanted <= 0x5A
            })
        else { return nil }
        return text[head.endIndex...]
    }

    /// Without leading and trailing white space (a scanner's terminating CR or LF).
    private static func trimmed(_ text: String) -> Substring {
        // Scanners add ASCII white space; looked at as bytes, the common case costs nothing.
        let utf8 = text.utf8
        guard let first = utf8.firstIndex(where: { $0 > 0x20 }), let last = utf8.lastIndex(where: { $0 > 0x20 }) else {
            return ""
        }
        return text[first...last]
    }

    /// `https://<host>/…/orders/<id>`, `repairminder://orders/<id>`, and the same for devices.
    private static func fromURL(_ url: URLComponents, scheme: String) -> OrderCode? {
        var segments = url.percentEncodedPath.split(separator: "/").map(String.init)
        switch scheme {
        case "repairminder":
            // The first word is the URL's host: repairminder://orders/ord_1001.
            if let host = url.percentEncodedHost, !host.isEmpty { segments.insert(host, at: 0) }
        case "http", "https":
            break
        default:
            return nil
        }
        guard segments.count >= 1 else { return nil }
        let last = segments.count >= 2 ? segments[segments.count - 2] : segments[segments.count - 1]
        let id = segments.count >= 2 ? segments[segments.count - 1] : ""
        let decoded = Substring(id.removingPercentEncoding ?? id)
        switch last.lowercased() {
        case "orders": return identifier(decoded, OrderCode.order)
        case "devices": return identifier(decoded, OrderCode.device)
        default:
            // A URL about something else is not an order code; a bare `…/orders` lacks its id.
            if ["orders", "devices"].contains(segments.last?.lowercased()) {
                return .invalid("the link \(url.string ?? "") names no id after /\(segments.last!)/")
            }
            return nil
        }
    }

    private static func identifier(_ id: Substring, _ make: (String) -> OrderCode) -> OrderCode {
        let id = String(trimmed(String(id)))
        guard !id.isEmpty else { return .invalid("the code names no id; expected e.g. ORDER:ord_1001") }
        guard id.count <= 128, !id.contains(where: { $0.isWhitespace || $0.isNewline || ($0.asciiValue ?? 32) < 32 }) else {
            return .invalid("'\(id.prefix(40))' is not an order or device id")
        }
        return make(id)
    }
}
