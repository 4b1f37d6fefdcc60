import Foundation
import Logging
import PostgresNIO
import ScanBridgeCodes
import ScanBridgeCore
import ScanBridgeModel
import Synchronization

/// The shop's cards and customers in PostgreSQL: the writes every counter makes there, each
/// one transaction, and the reads its replica is kept from. Each runs on a connection its
/// caller holds, under a deadline (`PostgresClient.withConnection(_:within:)`).
struct SharedCards: Sendable {
    let client: PostgresClient
    let logger: Logger
    let limit: Duration
    /// Whether this daemon has brought the schema up to date since it started.
    let migrated = SchemaMigrated()

    /// Runs `body` on a connection, failed after `limit`; the schema is migrated first, so a
    /// write right after the daemon starts does not meet a table not made yet.
    func run<T: Sendable>(_ what: String, _ body: @escaping @Sendable (PostgresConnection) async throws -> T)
        async throws -> T
    {
        try await client.withConnection(what, within: limit) { [migrated, logger] connection in
            if !migrated.done.withLock({ $0 }) {
                try await SharedSchema.migrate(connection, logger: logger)
                migrated.done.withLock { $0 = true }
            }
            return try await body(connection)
        }
    }

    static let customerColumns = """
        wallet_address, name, email, phone, first_card_linked_at, first_payment_at, auto_sign_enabled_at, created_at
        """
    static let cardColumns = "uid, wallet_address, card_name, status, created_at"

    typealias CustomerRow = (String, String?, String?, String?, Date?, Date?, Date?, Date)
    typealias CardRow = (String, String, String?, String, Date)

    // MARK: Writes

    /// Links the card, shop-wide: the card's row is unique by UID, so of two counters linking
    /// one card at once, one inserts it and the other finds it.
    func link(uid: NFCUID, walletAddress: String, cardName: String?, at time: Date, on connection: PostgresConnection)
        async throws -> CardLinkOutcome
    {
        let time = Self.milliseconds(time)
        let logger = self.logger
        do {
            return try await connection.withTransaction(logger: logger) { connection in
                try await connection.query(
                    """
                    INSERT INTO customers (wallet_address, created_at) VALUES (\(walletAddress), \(time))
                    ON CONFLICT (wallet_address) DO NOTHING
                    """, logger: logger)
                let inserted = try await connection.query(
                    """
                    INSERT INTO cards (uid, wallet_address, card_name, status, created_at)
                    VALUES (\(uid.hex), \(walletAddress), \(cardName), 'active', \(time))
                    ON CONFLICT (uid) DO NOTHING RETURNING \(unescaped: Self.cardColumns)
                    """, logger: logger
                ).decode(CardRow.self).firstCard()
                if let card = inserted {
                    let customer = try await Self.customers(
                        connection.query(
                            """
                            UPDATE customers SET first_card_linked_at = coalesce(first_card_linked_at, \(time))
                            WHERE wallet_address = \(walletAddress) RETURNING \(unescaped: Self.customerColumns)
                            """, logger: logger)
                    ).first
                    guard let customer else { throw Inconsistent(what: "customer \(walletAddress)") }
                    return .linked(card, customer)
                }
                guard
                    let existing = try await connection.query(
                        "SELECT \(unescaped: Self.cardColumns) FROM cards WHERE uid = \(uid.hex)", logger: logger
                    ).decode(CardRow.self).firstCard()
                else { throw Inconsistent(what: "card \(uid.display)") }
                // Rolled back: the customer made above for the losing wallet is not kept.
                guard existing.walletAddress == walletAddress else { throw LinkedElsewhere(card: existing) }
                let customer = try await Self.customers(
                    connection.query(
                        "SELECT \(unescaped: Self.customerColumns) FROM customers WHERE wallet_address = \(walletAddress)",
                        logger: logger)
                ).first
                guard let customer else { throw Inconsistent(what: "customer \(walletAddress)") }
                return .alreadyLinked(existing, customer)
            }
        } catch let error as PostgresTransactionError {
            // Rolled back as asked: the card is another wallet's.
            if let conflict = error.closureError as? LinkedElsewhere, error.rollbackError == nil {
                return .conflict(conflict.card)
            }
            throw error
        }
    }

    func setStatus(uid: NFCUID, status: Card.Status, on connection: PostgresConnection) async throws -> Card? {
        try await connection.query(
            """
            UPDATE cards SET status = \(status.rawValue) WHERE uid = \(uid.hex) RETURNING \(unescaped: Self.cardColumns)
            """, logger: logger
        ).decode(CardRow.self).firstCard()
    }

    func unlink(uid: NFCUID, on connection: PostgresConnection) async throws -> Bool {
        try await connection.query("DELETE FROM cards WHERE uid = \(uid.hex) RETURNING uid", logger: logger)
            .collect().count > 0
    }

    /// `customers.upsert`'s rule: given values replace, absent ones stay, milestones set once.
    func upsert(_ customer: Customer, on connection: PostgresConnection) async throws -> Customer {
        let m = customer.milestones
        let created = Self.milliseconds(customer.createdAt)
        let stored = try await Self.customers(
            connection.query(
                """
                INSERT INTO customers (\(unescaped: Self.customerColumns)) VALUES (
                    \(customer.walletAddress), \(customer.name), \(customer.email), \(customer.phone),
                    \(m.firstCardLinkedAt.map(Self.milliseconds)), \(m.firstPaymentAt.map(Self.milliseconds)),
                    \(m.autoSignEnabledAt.map(Self.milliseconds)), \(created))
                ON CONFLICT (wallet_address) DO UPDATE SET
                    name = coalesce(excluded.name, customers.name),
                    email = coalesce(excluded.email, customers.email),
                    phone = coalesce(excluded.phone, customers.phone),
                    first_card_linked_at = coalesce(customers.first_card_linked_at, excluded.first_card_linked_at),
                    first_payment_at = coalesce(customers.first_payment_at, excluded.first_payment_at),
                    auto_sign_enabled_at = coalesce(customers.auto_sign_enabled_at, excluded.auto_sign_enabled_at)
                RETURNING \(unescaped: Self.customerColumns)
                """, logger: logger))
        guard let first = stored.first else { throw Inconsistent(what: "customer \(customer.walletAddress)") }
        return first
    }

    /// Unlinks the wallet's cards and deletes its customer, in one transaction; returns the
    /// UIDs of the cards unlinked.
    func erase(walletAddress: String, on connection: PostgresConnection) async throws -> [NFCUID] {
        let logger = self.logger
        return try await connection.withTransaction(logger: logger) { connection in
            let cards = try await connection.query(
                "DELETE FROM cards WHERE wallet_address = \(walletAddress) RETURNING uid", logger: logger
            ).decode(String.self).collectAll()
            try await connection.query("DELETE FROM customers WHERE wallet_address = \(walletAddress)", logger: logger)
            return cards.compactMap { try? NFCUID(parsing: $0) }
        }
    }

    // MARK: Reads

    func customer(walletAddress: String, on connection: PostgresConnection) async throws -> Customer? {
        try await Self.customers(
            connection.query(
                "SELECT \(unescaped: Self.customerColumns) FROM customers WHERE wallet_address = \(walletAddress)",
                logger: logger)
        ).first
    }

    func card(uid: String, on connection: PostgresConnection) async throws -> Card? {
        try await connection.query("SELECT \(unescaped: Self.cardColumns) FROM cards WHERE uid = \(uid)", logger: logger)
            .decode(CardRow.self).firstCard()
    }

    /// Customers in wallet order after `after`, at most `limit`.
    func customers(after: String, limit: Int, on connection: PostgresConnection) async throws -> [Customer] {
        try await Self.customers(
            connection.query(
                """
                SELECT \(unescaped: Self.customerColumns) FROM customers WHERE wallet_address > \(after)
                ORDER BY wallet_address LIMIT \(limit)
                """, logger: logger))
    }

    /// Cards in UID order after `after`, at most `limit`.
    func cards(after: String, limit: Int, on connection: PostgresConnection) async throws -> [Card] {
        var cards: [Card] = []
        for try await row in try await connection.query(
            """
            SELECT \(unescaped: Self.cardColumns) FROM cards WHERE uid > \(after) ORDER BY uid LIMIT \(limit)
            """, logger: logger
        ).decode(CardRow.self) {
            if let card = Self.card(row) { cards.append(card) }
        }
        return cards
    }

    // MARK: Rows

    static func customers(_ rows: PostgresRowSequence) async throws -> [Customer] {
        var customers: [Customer] = []
        for try await row in rows.decode(CustomerRow.self) {
            customers.append(
                Customer(
                    walletAddress: row.0, name: row.1, email: row.2, phone: row.3,
                    milestones: Customer.Milestones(firstCardLinkedAt: row.4, firstPaymentAt: row.5, autoSignEnabledAt: row.6),
                    createdAt: row.7))
        }
        return customers
    }

    /// A card row, or nil for one no counter could have written (the back office's typo):
    /// such a row is left out of the replica rather than stop it.
    static func card(_ row: CardRow) -> Card? {
        guard let uid = try? NFCUID(parsing: row.0), let status = Card.Status(rawValue: row.3) else { return nil }
        return Card(uid: uid, walletAddress: row.1, cardName: row.2, status: status, createdAt: row.4)
    }

    /// Times as the local database keeps them, to the millisecond, so a replica reads back
    /// what the shop's store holds.
    static func milliseconds(_ date: Date) -> Date {
        Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
    }

    struct LinkedElsewhere: Error {
        let card: Card
    }

    struct Inconsistent: Error, CustomStringConvertible {
        let what: String
        var description: String { "the shop's store lost \(what) within a transaction" }
    }
}

/// Set once the schema is known to be current.
final class SchemaMigrated: Sendable {
    let done = Mutex(false)
}

extension AsyncThrowingMapSequence where Base == PostgresRowSequence, Element == SharedCards.CardRow {
    func firstCard() async throws -> Card? {
        for try await row in self { return SharedCards.card(row) }
        return nil
    }
}

extension AsyncThrowingMapSequence where Base == PostgresRowSequence {
    func collectAll() async throws -> [Element] {
        var all: [Element] = []
        for try await element in self { all.append(element) }
        return all
    }
}
