import PostgresNIO
import ScanBridgeCore
import ScanBridgeModel

extension SharedCards {
    /// Takes a counter's own customers and cards into the shop's store, in one transaction:
    /// customers merge as `customers.upsert` does, cards the shop already has under the same
    /// wallet are kept, and a card linked to another wallet there undoes the whole move,
    /// named in the error, so that no link is lost on either side.
    func move(from held: any CardReplicaStore, on connection: PostgresConnection, page: Int = 1000) async throws
        -> MovedToSharedStore
    {
        do {
            return try await inTurn(on: connection) { connection in
                var moved = MovedToSharedStore(customers: 0, cards: 0)
                var after = ""
                while true {
                    let customers = try await held.heldCustomers(after: after, limit: page)
                    for customer in customers { _ = try await upsert(customer, on: connection) }
                    moved.customers += customers.count
                    guard customers.count == page, let last = customers.last else { break }
                    after = last.walletAddress
                }
                after = ""
                var conflicts: [Card] = []
                while true {
                    let cards = try await held.heldCards(after: after, limit: page)
                    for card in cards {
                        if let other = try await insertKeepingLinks(card, on: connection) { conflicts.append(other) }
                    }
                    moved.cards += cards.count
                    guard cards.count == page, let last = cards.last else { break }
                    after = last.uid.hex
                }
                guard conflicts.isEmpty else { throw LinkedElsewhereInShop(cards: conflicts) }
                return moved
            }
        } catch let error as PostgresTransactionError {
            if let conflict = error.closureError as? LinkedElsewhereInShop, error.rollbackError == nil { throw conflict }
            throw error
        }
    }

    /// Inserts the card as it is; returns the shop's card instead when the shop has it
    /// linked to another wallet.
    private func insertKeepingLinks(_ card: Card, on connection: PostgresConnection) async throws -> Card? {
        let inserted = try await connection.query(
            """
            INSERT INTO scanbridge_cards (uid, wallet_address, card_name, status, created_at)
            VALUES (\(card.uid.hex), \(card.walletAddress), \(card.cardName), \(card.status.rawValue),
                \(Self.milliseconds(card.createdAt)))
            ON CONFLICT (uid) DO NOTHING RETURNING uid
            """, logger: logger
        ).collect()
        guard inserted.isEmpty else { return nil }
        let existing = try await connection.query(
            "SELECT \(unescaped: Self.cardColumns) FROM scanbridge_cards WHERE uid = \(card.uid.hex)", logger: logger
        ).decode(CardRow.self).firstCard()
        guard let existing, existing.walletAddress != card.walletAddress else { return nil }
        return existing
    }

    /// Cards this counter links to one wallet and the shop to another.
    struct LinkedElsewhereInShop: Error, CustomStringConvertible {
        let cards: [Card]
        var description: String {
            let shown = cards.prefix(10).map { "\($0.uid.display) (the shop's is linked to \($0.walletAddress))" }
            return "\(cards.count) card\(cards.count == 1 ? " is" : "s are") linked here to another wallet than in "
                + "the shop's store: \(shown.joined(separator: ", "))\(cards.count > 10 ? ", …" : ""); "
                + "nothing was moved: unlink each on one side, then move again"
        }
    }
}
