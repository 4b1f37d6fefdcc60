package import Foundation
import GRDB
package import ScanBridgeCore

/// The gateway's access tokens in the `access_token` table.
package struct SQLiteAccessTokens: AccessTokenRepository {
    let database: StoreDatabase

    package init(database: StoreDatabase) {
        self.database = database
    }

    package func all() throws -> [AccessTokenRecord] {
        do {
            return try database.pool.read { db in
                try Row.fetchAll(
                    db,
                    sql: """
                        SELECT id, name, role, origins, secretHash, createdAtMs, expiresAtMs, lastUsedAtMs
                        FROM access_token ORDER BY createdAtMs, rowid
                        """
                ).map(Self.record)
            }
        } catch {
            throw database.storeError(error, "read the access tokens")
        }
    }

    package func insert(_ token: AccessTokenRecord, limit: Int, now: Date) async throws -> TokenInsertion {
        let origins = try Self.encode(token.origins)
        return try await database.write("save access token \(token.id)") { db in
            var insertion = TokenInsertion.saved
            let kept = try Int.fetchOne(db, sql: "SELECT count(*) FROM access_token") ?? 0
            if kept >= limit {
                guard
                    let expired = try String.fetchOne(
                        db,
                        sql:
                            "SELECT id FROM access_token WHERE expiresAtMs <= ? ORDER BY expiresAtMs, id LIMIT 1",
                        arguments: [StoreTime.milliseconds(now)])
                else { return .full }
                try db.execute(sql: "DELETE FROM access_token WHERE id = ?", arguments: [expired])
                insertion = .savedReplacing(id: expired)
            }
            try db.execute(
                sql: """
                    INSERT INTO access_token (id, name, role, origins, secretHash, createdAtMs, expiresAtMs, lastUsedAtMs)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    token.id, token.name, token.role, origins, Data(token.secretHash), StoreTime.milliseconds(token.createdAt),
                    token.expiresAt.map(StoreTime.milliseconds), token.lastUsedAt.map(StoreTime.milliseconds),
                ])
            return insertion
        }
    }

    package func delete(id: String) async throws -> Bool {
        try await database.write("revoke access token \(id)") { db in
            try db.execute(sql: "DELETE FROM access_token WHERE id = ?", arguments: [id])
            return db.changesCount > 0
        }
    }

    package func recordUse(id: String, at time: Date) async throws {
        try await database.write("record the use of access token \(id)") { db in
            try db.execute(
                sql: "UPDATE access_token SET lastUsedAtMs = ? WHERE id = ?", arguments: [StoreTime.milliseconds(time), id])
        }
    }

    private static func record(_ row: Row) throws -> AccessTokenRecord {
        let originsJSON: String = row["origins"]
        let hash: Data = row["secretHash"]
        return AccessTokenRecord(
            id: row["id"], name: row["name"], role: row["role"],
            origins: try JSONDecoder().decode([String].self, from: Data(originsJSON.utf8)), secretHash: [UInt8](hash),
            createdAt: StoreTime.date(row["createdAtMs"] as Int64), expiresAt: StoreTime.date(row["expiresAtMs"] as Int64?),
            lastUsedAt: StoreTime.date(row["lastUsedAtMs"] as Int64?))
    }

    private static func encode(_ origins: [String]) throws -> String {
        String(decoding: try JSONEncoder().encode(origins), as: UTF8.self)
    }
}
