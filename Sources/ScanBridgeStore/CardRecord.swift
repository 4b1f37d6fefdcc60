import GRDB
import ScanBridgeCodes
import ScanBridgeCore
import ScanBridgeModel

/// A row of `card`: a `Card` with its UID as uppercase hex (`04A1B2C3D4E5F6`).
struct CardRecord: FetchableRecord, TableRecord, Sendable {
    static let databaseTableName = "card"

    /// The columns every read selects, in the order `init(row:)` reads them.
    static let columns = "uid, walletAddress, cardName, status, createdAtMs, security"

    var card: Card

    init(_ card: Card) {
        self.card = card
    }

    init(row: Row) throws {
        let uid: String = row[0]
        let status: String = row[3]
        let security: String = row[5]
        guard let parsed = try? NFCUID(parsing: uid), let cardStatus = Card.Status(rawValue: status),
            let cardSecurity = Card.Security(rawValue: security)
        else {
            throw ScanBridgeError(
                .internalError, "the stored card '\(uid)' has an unreadable UID, status '\(status)' or security '\(security)'")
        }
        card = Card(
            uid: parsed, walletAddress: row[1], cardName: row[2], status: cardStatus, security: cardSecurity,
            createdAt: StoreTime.date(row[4] as Int64))
    }

    func insert(_ db: Database) throws {
        try db.cachedStatement(sql: "INSERT INTO card (\(Self.columns)) VALUES (?, ?, ?, ?, ?, ?)").execute(arguments: [
            card.uid.hex, card.walletAddress, card.cardName, card.status.rawValue, StoreTime.milliseconds(card.createdAt),
            card.security.rawValue,
        ])
    }

    static func fetch(uid: NFCUID, _ db: Database) throws -> Card? {
        try fetchOne(db.cachedStatement(sql: "SELECT \(columns) FROM card WHERE uid = ?"), arguments: [uid.hex])?.card
    }
}
