import Foundation
import PostgresNIO

/// Why the shop's store failed, in a line for logs and `doctor`. postgres-nio's own
/// descriptions either hide everything or carry the whole query with its values (here, a
/// batch of events); this keeps the server's message and the cause, never the values.
package enum SharedStoreError {
    package static func reason(_ error: any Error) -> String {
        let error = unwrapped(error)
        // A transaction error with no cause in it: its own description would carry the query.
        if error is PostgresTransactionError { return "a transaction failed" }
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

    /// The server's SQLSTATE for the error, through a transaction's wrapping; nil for an
    /// error that never reached the server (no connection, a deadline).
    package static func sqlState(_ error: any Error) -> String? {
        (unwrapped(error) as? PSQLError)?.serverInfo?[.sqlState]
    }

    /// The error a transaction's body threw (or its begin or commit), else the error itself.
    package static func unwrapped(_ error: any Error) -> any Error {
        guard let transaction = error as? PostgresTransactionError else { return error }
        return transaction.closureError ?? transaction.beginError ?? transaction.commitError ?? error
    }

    /// A unique key's clash: the constraint's name and the first value of the key, from the
    /// server's detail (`Key (gtin, store_id)=(05901234123457, ) already exists.`).
    package static func clash(_ error: any Error) -> (constraint: String, key: String)? {
        guard let info = (unwrapped(error) as? PSQLError)?.serverInfo, let constraint = info[.constraintName],
            let detail = info[.detail], let start = detail.range(of: ")=("),
            let end = detail.range(of: ") already exists", options: .backwards), start.upperBound <= end.lowerBound
        else { return nil }
        let values = detail[start.upperBound..<end.lowerBound]
        return (constraint, String(values.prefix { $0 != "," }))
    }
}
