package import Foundation
import GRDB

/// The operator's scanner claims and releases in the `scanner_override` table: the choice
/// (`claim` or `release`) per key (`vvvv:pppp` or a device id).
package struct SQLiteScannerOverrides: Sendable {
    let database: StoreDatabase

    package init(database: StoreDatabase) {
        self.database = database
    }

    /// Every saved choice, by key. Blocking: for the daemon's start, off the cooperative pool.
    package func all() throws -> [String: String] {
        do {
            return try database.pool.read { db in
                var choices: [String: String] = [:]
                for row in try Row.fetchAll(db, sql: "SELECT key, choice FROM scanner_override") {
                    choices[row["key"]] = row["choice"]
                }
                return choices
            }
        } catch {
            throw database.storeError(error, "read the scanner claims")
        }
    }

    /// Saves `choice` for `key`, replacing the one before.
    package func save(_ choice: String, for key: String, at date: Date = Date()) async throws {
        try await database.write("save the \(choice) of \(key)") { db in
            try db.execute(
                sql: """
                    INSERT INTO scanner_override (key, choice, updatedAtMs) VALUES (?, ?, ?)
                    ON CONFLICT (key) DO UPDATE SET choice = excluded.choice, updatedAtMs = excluded.updatedAtMs
                    """,
                arguments: [key, choice, StoreTime.milliseconds(date)])
        }
    }
}
