import GRDB
import ScanBridgeCodes
import ScanBridgeCore
import ScanBridgeModel

/// A row of `card`: a `Card` with its UID as uppercase hex (`04A1B2C3D4E5F6`).
struct CardRecord: FetchableRecord, TableRecord, Sendable {
    static let databaseTableName = "card"

    /// The columns every read selects, in the order `init(row:)` reads them.
    static let columns = "uid, walletAddress, cardName, status, createdAtMs"

    var card: Card

    init(_ card: Card) {
        self.card = card
    }

    init(row: Row) throws {
        let uid: String = row[0]
        let status: String = row[3]
        guard let parsed = try? NFCUID(parsing: uid), let cardStatus = Card.Status(rawValue: status) else {
            throw ScanBridgeError(.internalError, "the stored card '\(uid)' has an unreadable UID or status '\(status)'")
        }
        card = Card(
            uid: parsed, walletAddress: row[1], cardName: row[2], status: cardStatus, createdAt: StoreTime.date(row[4] as Int64))
    }

    func insert(_ db: Database) throws {
        try db.cachedStatement(sql: "INSERT INTO card (\(Self.columns)) VALUES (?, ?, ?, ?, ?)").execute(arguments: [
            card.uid.hex, card.walletAddress, card.cardName, card.status.rawValue, StoreTime.milliseconds(card.createdAt),
        ])
    }

    static func fetch(uid: NFCUID, _ db: Database) throws -> Card? {
        try fetchOne(db.cachedStatement(sql: "SELECT \(columns) FROM card WHERE uid = ?"), arguments: [uid.hex])?.card
    }
}
