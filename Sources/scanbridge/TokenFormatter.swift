import Foundation
import ScanBridgeModel

/// How tokens read in a terminal.
enum TokenFormatter {
    static func describe(_ token: JSONValue) -> String {
        let origins = (token["origins"]?.arrayValue ?? []).compactMap(\.stringValue)
        return "created token \(token["id"]?.stringValue ?? "?") \"\(token["name"]?.stringValue ?? "")\" "
            + "(\(token["role"]?.stringValue ?? "?")), origins: \(origins.isEmpty ? "none" : origins.joined(separator: " ")), "
            + "expires: \(token["expiresAt"]?.stringValue ?? "never")"
    }

    static func table(_ tokens: [JSONValue], now: Date) -> String {
        guard !tokens.isEmpty else { return "no access tokens" }
        let rows = tokens.map { token -> [String] in
            let expires = token["expiresAt"]?.stringValue
            let expired = expires.flatMap(EventTime.parse).map { $0 <= now } ?? false
            return [
                token["id"]?.stringValue ?? "", token["name"]?.stringValue ?? "", token["role"]?.stringValue ?? "",
                (token["origins"]?.arrayValue ?? []).compactMap(\.stringValue).joined(separator: " "),
                token["createdAt"]?.stringValue ?? "", expires.map { expired ? "\($0) (expired)" : $0 } ?? "never",
                token["lastUsedAt"]?.stringValue ?? "never",
            ]
        }
        return TextTable.render(header: ["ID", "NAME", "ROLE", "ORIGINS", "CREATED", "EXPIRES", "LAST USED"], rows: rows)
    }
}
