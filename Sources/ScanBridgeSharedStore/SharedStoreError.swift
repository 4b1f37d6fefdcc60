import PostgresNIO

/// Why the shop's store failed, in a line for logs and `doctor`. postgres-nio's own
/// descriptions either hide everything or carry the whole query with its values (here, a
/// batch of events); this keeps the server's message and the cause, never the values.
package enum SharedStoreError {
    package static func reason(_ error: any Error) -> String {
        guard let error = error as? PSQLError else { return String(describing: error) }
        var parts = ["\(error.code)"]
        if let info = error.serverInfo {
            if let state = info[.sqlState] { parts.append("SQLSTATE \(state)") }
            if let message = info[.message] { parts.append(message) }
            if let detail = info[.detail] { parts.append(detail) }
        }
        if let underlying = error.underlying { parts.append(String(describing: underlying)) }
        return parts.joined(separator: ": ")
    }
}
