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
    let pool: StorePool
    let logger: Logger
    let limit: Duration
    /// Brings the schema up to date once since the daemon started.
    let schema: SchemaKeeper

    /// Runs `body` on a connection, failed after `limit`; the schema is migrated first, so a
    /// write right after the daemon starts does not meet a table not made yet.
    func run<T: Sendable>(
        _ what: String, within given: Duration? = nil, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await pool.withConnection(what, within: given ?? limit) { [schema] connection in
            try await schema.ensure(connection)
            return try await body(connection)
        }
    }

    static let customerColumns = """
        wallet_address, name, email, phone, first_card_linked_at, first_payment_at, auto_sign_enabled_at, created_at
        """
    static let cardColumns = "uid, wallet_address, card_name, status, created_at, security"

    typealias CustomerRow = (String, String?, String?, String?, Date?, Date?, Date?, Date)
    typealias CardRow = (String, String, String?, String, Date, String)

    // MARK: Writes

    /// Links the card, shop-wide: writers take turns on the shop's store (`SharedWrites`), so
    /// of two counters linking one card at once, the second finds the first's link; and the
    /// card's row is unique by UID whoever else writes.
    func link(
        uid: NFCUID, walletAddress: String, cardName: String?, security: Card.Security, at time: Date,
        on connection: PostgresConnection
    ) async throws -> CardLinkOutcome {
        let time = Self.milliseconds(time)
        if let existing = try await card(uid: uid.hex, on: connection) {
            guard existing.walletAddress == walletAddress else { return .conflict(existing) }
            guard let customer = try await customer(walletAddress: walletAddress, on: connection) else {
                throw Inconsistent(what: "customer \(walletAddress)")
            }
            return .alreadyLinked(existing, customer)
        }
        try await connection.query(
            """
            INSERT INTO scanbridge_customers (wallet_address, created_at) VALUES (\(walletAddress), \(time))
            ON CONFLICT (wallet_address) DO NOTHING
            """, logger: logger)
        let inserted = try await connection.query(
            """
            INSERT INTO scanbridge_cards (uid, wallet_address, card_name, status, created_at, security)
            VALUES (\(uid.hex), \(walletAddress), \(cardName), 'active', \(time), \(security.rawValue))
            RETURNING \(unescaped: Self.cardColumns)
            """, logger: logger
        ).decode(CardRow.self).firstCard()
        let customer = try await Self.customers(
            connection.query(
                """
                UPDATE scanbridge_customers SET first_card_linked_at = coalesce(first_card_linked_at, \(time))
                WHERE wallet_address = \(walletAddress) RETURNING \(unescaped: Self.customerColumns)
                """, logger: logger)
        ).first
        guard let inserted, let customer else { throw Inconsistent(what: "card \(uid.display)") }
        return .linked(inserted, customer)
    }

    func setStatus(uid: NFCUID, status: Card.Status, on connection: PostgresConnection) async throws -> Card? {
        try await connection.query(
            """
            UPDATE scanbridge_cards SET status = \(status.rawValue) WHERE uid = \(uid.hex) RETURNING \(unescaped: Self.cardColumns)
            """, logger: logger
        ).decode(CardRow.self).firstCard()
    }

    /// The shop-wide half of `CardRepository.acceptReadCounter`: one statement, whose
    /// conditional update PostgreSQL runs on the row as the last committed writer left it,
    /// so two counters shown the same message cannot both accept it.
    static func acceptReadCounter(
        uid: NFCUID, counter: Int, counterID: String, on connection: PostgresConnection, logger: Logger
    ) async throws -> Bool {
        try await !connection.query(
            """
            INSERT INTO scanbridge_card_counters (uid, read_counter, counter_id) VALUES (\(uid.hex), \(counter), \(counterID))
            ON CONFLICT (uid) DO UPDATE SET read_counter = excluded.read_counter, counter_id = excluded.counter_id,
                accepted_at = now()
            WHERE scanbridge_card_counters.read_counter < excluded.read_counter
            RETURNING uid
            """, logger: logger
        ).collect().isEmpty
    }

    func unlink(uid: NFCUID, on connection: PostgresConnection) async throws -> Bool {
        try await connection.query("DELETE FROM scanbridge_cards WHERE uid = \(uid.hex) RETURNING uid", logger: logger)
            .collect().count > 0
    }

    /// `customers.upsert`'s rule: given values replace, absent ones stay, milestones set once.
    func upsert(_ customer: Customer, on connection: PostgresConnection) async throws -> Customer {
        guard let stored = try await upsert(customers: [customer], on: connection).first else {
            throw Inconsistent(what: "customer \(customer.walletAddress)")
        }
        return stored
    }

    /// `upsert(_:on:)` for many customers in one statement; returns them as stored.
    func upsert(customers: [Customer], on connection: PostgresConnection) async throws -> [Customer] {
        guard !customers.isEmpty else { return [] }
        return try await Self.customers(
            connection.query(
                """
                INSERT INTO scanbridge_customers (\(unescaped: Self.customerColumns))
                SELECT wallet_address, name, email, phone, to_timestamp(first_card_linked_at_ms / 1000.0),
                    to_timestamp(first_payment_at_ms / 1000.0), to_timestamp(auto_sign_enabled_at_ms / 1000.0),
                    to_timestamp(created_at_ms / 1000.0)
                FROM jsonb_to_recordset(\(try Self.json(customers))::jsonb) AS c(\(unescaped: Self.customerRecordType))
                ON CONFLICT (wallet_address) DO UPDATE SET
                    name = coalesce(excluded.name, scanbridge_customers.name),
                    email = coalesce(excluded.email, scanbridge_customers.email),
                    phone = coalesce(excluded.phone, scanbridge_customers.phone),
                    first_card_linked_at = coalesce(scanbridge_customers.first_card_linked_at, excluded.first_card_linked_at),
                    first_payment_at = coalesce(scanbridge_customers.first_payment_at, excluded.first_payment_at),
                    auto_sign_enabled_at = coalesce(scanbridge_customers.auto_sign_enabled_at, excluded.auto_sign_enabled_at)
                RETURNING \(unescaped: Self.customerColumns)
                """, logger: logger))
    }

    /// Unlinks the wallet's cards and deletes its customer; returns the UIDs of the cards
    /// unlinked. One transaction with its caller's (`SharedWrites`).
    func erase(walletAddress: String, on connection: PostgresConnection) async throws -> [String] {
        let cards = try await connection.query(
            "DELETE FROM scanbridge_cards WHERE wallet_address = \(walletAddress) RETURNING uid", logger: logger
        ).decode(String.self).collectAll()
        try await connection.query(
            "DELETE FROM scanbridge_customers WHERE wallet_address = \(walletAddress)", logger: logger)
        return cards
    }

    // MARK: Reads

    /// This database's identity (`scanbridge_shop`), and the newest change the log's
    /// compaction took away (`scanbridge_compact`; 0 for none): read together.
    func shop(on connection: PostgresConnection) async throws -> (id: String, compactedThrough: Int64) {
        for try await shop in try await connection.query(
            "SELECT id::text, compacted_through FROM scanbridge_shop", logger: logger
        ).decode((String, Int64).self) {
            return shop
        }
        throw Inconsistent(what: "its identity")
    }

    /// The change log's newest id, 0 when empty.
    func lastChange(on connection: PostgresConnection) async throws -> Int64 {
        for try await id in try await connection.query(
            "SELECT coalesce(max(id), 0) FROM scanbridge_changes", logger: logger
        ).decode(Int64.self) {
            return id
        }
        return 0
    }

    /// At most `limit` changes after `after`, in order: their id, when they were made
    /// (`stamp(ofChange:on:)`), table and key; nil for a key longer than any row's key may
    /// be, which names no row a counter could hold.
    func changes(after: Int64, limit: Int, on connection: PostgresConnection) async throws -> [ShopChange] {
        var changes: [ShopChange] = []
        for try await (id, stamp, table, key) in try await connection.query(
            """
            SELECT id, \(unescaped: Self.stamp), left(table_name, 64),
                CASE WHEN octet_length(key) <= \(Self.maxKeyBytes) THEN key END
            FROM scanbridge_changes WHERE id > \(after) ORDER BY id LIMIT \(limit)
            """, logger: logger
        ).decode((Int64, Int64, String, String?).self) {
            changes.append(ShopChange(id: id, stamp: stamp, table: table, key: key))
        }
        return changes
    }

    /// The log's newest change, nil when it has none.
    func newestChange(on connection: PostgresConnection) async throws -> (id: Int64, stamp: Int64)? {
        for try await (id, stamp) in try await connection.query(
            "SELECT id, \(unescaped: Self.stamp) FROM scanbridge_changes ORDER BY id DESC LIMIT 1", logger: logger
        ).decode((Int64, Int64).self) {
            return (id, stamp)
        }
        return nil
    }

    /// When the change was made, in microseconds since 1970; nil when the log has no such change.
    func stamp(ofChange id: Int64, on connection: PostgresConnection) async throws -> Int64? {
        for try await stamp in try await connection.query(
            "SELECT \(unescaped: Self.stamp) FROM scanbridge_changes WHERE id = \(id)", logger: logger
        ).decode(Int64.self) {
            return stamp
        }
        return nil
    }

    /// The longest key of any followed table's row, in bytes.
    static let maxKeyBytes = JSONFields.maxBytes(ofCharacters: 128)

    private static let stamp = "(extract(epoch FROM made_at) * 1000000)::bigint"

    func customer(walletAddress: String, on connection: PostgresConnection) async throws -> Customer? {
        try await customers(wallets: [walletAddress], on: connection).rows.first
    }

    func card(uid: String, on connection: PostgresConnection) async throws -> Card? {
        try await cards(uids: [uid], on: connection).rows.first
    }

    /// The customers of these wallets that exist; one no client could have given here is
    /// refused, the longest of them before it is read (`ShopRowBounds`).
    func customers(wallets: [String], on connection: PostgresConnection) async throws -> ShopRows<Customer> {
        let bounds = ShopRowBounds.customers
        var read = ShopRows<Customer>()
        for customer in try await Self.customers(
            connection.query(
                """
                SELECT \(unescaped: Self.customerColumns) FROM scanbridge_customers
                WHERE wallet_address = ANY(\(wallets)) AND \(unescaped: bounds.fits)
                """, logger: logger))
        {
            if let problem = customer.inputProblem {
                read.refused.append(RefusedRow(table: bounds.table, key: customer.walletAddress, reason: problem))
            } else {
                read.rows.append(customer)
            }
        }
        read.refused += try await bounds.refused(
            among: Set(wallets).subtracting(read.rows.map(\.walletAddress)).subtracting(read.refused.map(\.key)),
            on: connection, logger: logger)
        return read
    }

    /// The cards of these UIDs that exist; one no counter could have written (typed by hand
    /// past the table's checks) is refused, the longest of them before it is read.
    func cards(uids: [String], on connection: PostgresConnection) async throws -> ShopRows<Card> {
        let bounds = ShopRowBounds.cards
        var read = ShopRows<Card>()
        var seen: Set<String> = []
        for try await row in try await connection.query(
            """
            SELECT \(unescaped: Self.cardColumns) FROM scanbridge_cards
            WHERE uid = ANY(\(uids)) AND \(unescaped: bounds.fits)
            """, logger: logger
        ).decode(CardRow.self) {
            seen.insert(row.0)
            let card = Self.card(row)
            if let card, card.inputProblem == nil {
                read.rows.append(card)
            } else {
                let problem = card?.inputProblem ?? "its UID or status is not one a counter reads"
                read.refused.append(RefusedRow(table: bounds.table, key: row.0, reason: problem))
            }
        }
        read.refused += try await bounds.refused(among: Set(uids).subtracting(seen), on: connection, logger: logger)
        return read
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
        guard let uid = try? NFCUID(parsing: row.0), let status = Card.Status(rawValue: row.3),
            let security = Card.Security(rawValue: row.5)
        else { return nil }
        return Card(uid: uid, walletAddress: row.1, cardName: row.2, status: status, security: security, createdAt: row.4)
    }

    /// Times as the local database keeps them, to the millisecond, so a replica reads back
    /// what the shop's store holds.
    static func milliseconds(_ date: Date) -> Date {
        Date(timeIntervalSince1970: Double(RecordsetJSON.milliseconds(date)) / 1000)
    }

    struct Inconsistent: Error, CustomStringConvertible {
        let what: String
        var description: String { "the shop's store lost \(what) within a transaction" }
    }
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

extension SharedCards {
    /// Runs `body` in one transaction that first waits for its turn on the change log, as the
    /// tables' triggers would at the first row: taken before any row is written, a writer
    /// never holds a row another writer waits for while it waits for the log.
    /// `before`, when given, runs first in the same transaction, before the turn: work on
    /// this transaction's own temporary tables that no other writer needs to wait for.
    func inTurn<T: Sendable>(
        on connection: PostgresConnection, before: (@Sendable (PostgresConnection) async throws -> Void)? = nil,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let logger = self.logger
        return try await connection.withTransaction(logger: logger) { connection in
            try await before?(connection)
            // A turn held longer (a back-office session left open in a transaction) fails
            // this write with 55P03 rather than hold it until the caller's deadline.
            try await connection.query("SET LOCAL lock_timeout = '5s'", logger: logger)
            try await connection.query("SELECT pg_advisory_xact_lock(\(SharedSchema.changeLogLockKey))", logger: logger)
            return try await body(connection)
        }
    }
}

/// One change of the shop's log (`scanbridge_changes`): the row of `table` it names by `key`.
struct ShopChange: Sendable {
    let id: Int64
    /// When it was made (`SharedCards.stamp(ofChange:on:)`).
    let stamp: Int64
    let table: String
    /// Nil for a key longer than any row's key may be, which names no row a counter could hold.
    let key: String?
}
