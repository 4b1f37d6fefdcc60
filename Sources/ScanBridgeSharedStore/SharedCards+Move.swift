import PostgresNIO
import ScanBridgeCodes
import ScanBridgeCore
import ScanBridgeModel

extension SharedCards {
    /// Takes a counter's own customers, cards, products and repair orders into the shop's
    /// store, in one transaction, a page at a time: customers merge as `customers.upsert`
    /// does, and cards, products and orders the shop already has stay the shop's. Anything the move
    /// would lose or bring back undoes it all, named in the error: a card the shop has
    /// linked to another wallet or with another status, a customer the shop erased after
    /// this counter made it, a GTIN or SKU another product of its store holds there, a
    /// reference or device another order holds there.
    func move(from held: any ShopReplicaStore, on connection: PostgresConnection, page: Int = 1000) async throws
        -> MovedToSharedStore
    {
        try await inTurn(on: connection) { connection in
            var moved = MovedToSharedStore()
            try await Self.pages(of: held.heldCustomers, size: page, key: \.walletAddress) { customers in
                let erased = try await erasedAfterMade(customers, on: connection)
                guard erased.isEmpty else {
                    throw ScanBridgeError.conflict(
                        "the shop erased \(Self.named(erased)) after this counter made them; nothing was moved: "
                            + "erase them here too (scanbridge customers erase), then move again")
                }
                moved.customers += try await upsert(customers: customers, on: connection).count
            }
            try await Self.pages(of: held.heldCards, size: page, key: \.uid.hex) { cards in
                let differing = try await insertKeepingTheShops(cards, on: connection)
                guard differing.isEmpty else {
                    let named = differing.map { "\($0.uid.display) (\($0.walletAddress), \($0.status.rawValue) there)" }
                    throw ScanBridgeError.conflict(
                        "the shop has \(Self.named(named)) linked otherwise than here; nothing was moved: "
                            + "make each the same on both sides (or unlink it on one), then move again")
                }
                moved.cards += cards.count
            }
            let products = SharedProducts(logger: logger)
            try await Self.pages(of: held.heldProducts, size: page, key: \.id) { page in
                moved.products += try await products.insertKeepingTheShops(page, on: connection)
            }
            let orders = SharedOrders(logger: logger)
            try await Self.pages(of: held.heldOrders, size: page, key: \.id) { page in
                moved.orders += try await orders.upsert(page, keepingTheShops: true, on: connection).count
            }
            return moved
        }
    }

    /// Reads everything `read` gives, `size` at a time in `key` order, handing each page to `body`.
    private static func pages<Row>(
        of read: (_ after: String, _ limit: Int) async throws -> [Row], size: Int, key: (Row) -> String,
        _ body: ([Row]) async throws -> Void
    ) async throws {
        var after = ""
        while true {
            let rows = try await read(after, size)
            guard let last = rows.last else { return }
            try await body(rows)
            after = key(last)
        }
    }

    /// The wallets of `customers` that the shop erased after the counter made them.
    private func erasedAfterMade(_ customers: [Customer], on connection: PostgresConnection) async throws -> [String] {
        try await connection.query(
            """
            SELECT c.wallet_address
            FROM jsonb_to_recordset(\(try Self.json(customers))::jsonb) AS c(\(unescaped: Self.customerRecordType))
            JOIN erased_wallets e ON e.wallet_address = c.wallet_address
            WHERE e.erased_at >= to_timestamp(c.created_at_ms / 1000.0)
            """, logger: logger
        ).decode(String.self).collectAll()
    }

    /// Inserts the cards the shop does not have; returns the shop's cards that differ from
    /// these (another wallet, another status).
    private func insertKeepingTheShops(_ cards: [Card], on connection: PostgresConnection) async throws -> [Card] {
        let json = try Self.json(cards)
        try await connection.query(
            """
            INSERT INTO scanbridge_cards (\(unescaped: Self.cardColumns))
            SELECT uid, wallet_address, card_name, status, to_timestamp(created_at_ms / 1000.0), security
            FROM jsonb_to_recordset(\(json)::jsonb) AS c(\(unescaped: Self.cardRecordType))
            ON CONFLICT (uid) DO NOTHING
            """, logger: logger)
        var differing: [Card] = []
        for try await row in try await connection.query(
            """
            SELECT s.uid, s.wallet_address, s.card_name, s.status, s.created_at, s.security
            FROM jsonb_to_recordset(\(json)::jsonb) AS c(\(unescaped: Self.cardRecordType))
            JOIN scanbridge_cards s ON s.uid = c.uid
            WHERE s.wallet_address <> c.wallet_address OR s.status <> c.status
            """, logger: logger
        ).decode(CardRow.self) {
            if let card = Self.card(row) { differing.append(card) }
        }
        return differing
    }

    /// Up to ten of `items`, and how many more.
    private static func named(_ items: [String]) -> String {
        items.prefix(10).joined(separator: ", ") + (items.count > 10 ? " and \(items.count - 10) more" : "")
    }
}
