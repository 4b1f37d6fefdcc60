import Logging
import PostgresNIO
import ScanBridgeCore
import Synchronization

extension ShopReplica {
    /// The stamp of a copy whose snapshot is due or under way (no change has it): the copy
    /// holds some of the shop's rows, not a point of its log, and takes a snapshot again if
    /// stopped.
    static let snapshotDue: Int64 = -1

    /// The position of such a copy.
    static func snapshotDue(_ shop: String) -> ReplicaPosition {
        ReplicaPosition(shop: shop, lastChange: 0, stamp: snapshotDue)
    }

    /// Takes the shop's rows as they are into the copy, in one snapshot of the shop's store:
    /// each table's keys read a page at a time through a cursor (products in the order the
    /// log would have brought them, which decides among products sharing a barcode text),
    /// the rows they name read and checked as a change's are; then every key the copy holds
    /// that the snapshot has not is taken away. The copy then stands at the log's newest
    /// change, and follows the log from there.
    func snapshot(shop: String) async throws -> ReplicaPosition {
        let underWay = Self.snapshotDue(shop)
        // An empty copy has nothing to sweep.
        let sweep = try await replica.holdsAny()
        let started = ContinuousClock.now
        logger.notice("copying a snapshot of the shop's store")
        let through = try await shared.run("a snapshot of the shop's store", within: .seconds(3600)) {
            [self] connection in
            try await connection.withTransaction(logger: logger) { connection in
                try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", logger: logger)
                let head = try await shared.newestChange(on: connection)
                for table in ShopTable.allCases {
                    try await copy(table, through: underWay, on: connection)
                    if sweep { try await self.sweep(table, through: underWay, on: connection) }
                }
                return head.map { ReplicaPosition(shop: shop, lastChange: $0.id, stamp: $0.stamp) }
                    ?? ReplicaPosition(shop: shop, lastChange: 0, stamp: 0)
            }
        }
        try await replica.apply(ReplicaBatch(through: through))
        state.withLock {
            $0.applied = through.lastChange
            $0.refusal = nil
        }
        logger.notice(
            "copied a snapshot of the shop's store",
            metadata: ["change": "\(through.lastChange)", "seconds": "\(ContinuousClock.now - started)"])
        return through
    }

    /// Copies every row of `table`, `page` keys at a time.
    private func copy(_ table: ShopTable, through: ReplicaPosition, on connection: PostgresConnection) async throws {
        let (name, key) = (table.bounds.table, table.bounds.key)
        // Products in the order the log would have brought them; the others by key.
        let order = table == .products ? "created_at, id" : #"\#(key) COLLATE "C""#
        try await connection.query(
            PostgresQuery(
                unsafeSQL: """
                    DECLARE scanbridge_snapshot NO SCROLL CURSOR FOR SELECT \(key) FROM \(name)
                    WHERE octet_length(\(key)) <= \(SharedCards.maxKeyBytes) ORDER BY \(order)
                    """), logger: logger)
        // As a page of changes: fewer rows at a time where each may hold more (orders).
        let fetch = max(1, min(page, pageBytes / table.maxRowBytes))
        while true {
            let keys = try await connection.query(
                PostgresQuery(unsafeSQL: "FETCH \(fetch) FROM scanbridge_snapshot"), logger: logger
            ).decode(String.self).collectAll()
            guard !keys.isEmpty else { break }
            try await applyRows([table: Set(keys)], through: through, on: connection)
        }
        try await connection.query("CLOSE scanbridge_snapshot", logger: logger)
    }

    /// Takes away the rows of `table` the copy holds and the snapshot has not.
    private func sweep(_ table: ShopTable, through: ReplicaPosition, on connection: PostgresConnection) async throws {
        let (name, key) = (table.bounds.table, table.bounds.key)
        var after = ""
        while true {
            let held = try await replica.heldKeys(of: table, after: after, limit: page)
            guard let last = held.last else { return }
            let present = try await connection.query(
                "SELECT \(unescaped: key) FROM \(unescaped: name) WHERE \(unescaped: key) = ANY(\(held))", logger: logger
            ).decode(String.self).collectAll()
            let gone = Set(held).subtracting(present)
            if !gone.isEmpty { try await applyRows([table: gone], through: through, on: connection) }
            after = last
        }
    }

    private func applyRows(
        _ keys: [ShopTable: Set<String>], through: ReplicaPosition, on connection: PostgresConnection
    ) async throws {
        let (batch, refused) = try await Self.rows(
            keys, through: through, shared: shared, products: products, orders: orders, on: connection)
        try await replica.apply(batch)
        noteRefused(refused, applied: batch)
    }

    struct Compacted: Error {}
}
