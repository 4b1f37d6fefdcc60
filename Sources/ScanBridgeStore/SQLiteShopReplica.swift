import Foundation
import GRDB
import ScanBridgeCodes
package import ScanBridgeCore
package import ScanBridgeModel

/// The `product`, `customer` and `card` tables as a replica of the shop's store
/// (`ShopReplicaStore`), with `shop_replica` saying how far. Products go through the
/// catalog's repository, for its key filter and lookup cache.
package final class SQLiteShopReplica: ShopReplicaStore {
    let database: StoreDatabase
    let catalog: SQLiteProductRepository

    package init(database: StoreDatabase, catalog: SQLiteProductRepository) {
        self.database = database
        self.catalog = catalog
    }

    package func position() async throws -> ReplicaPosition? {
        try await database.read("read where the copy of the shop's cards stands") { db in
            try Row.fetchOne(db, sql: "SELECT shopId, lastChange, lastChangeStamp FROM shop_replica").map {
                ReplicaPosition(shop: $0["shopId"], lastChange: $0["lastChange"], stamp: $0["lastChangeStamp"])
            }
        }
    }

    /// Makes the data here this counter's own: for a daemon that runs without the shop's
    /// store, whose writes the shop never sees.
    package func forget() async throws {
        try await database.write("forget the shop's store") { db in try db.execute(sql: "DELETE FROM shop_replica") }
    }

    package func holdsAny() async throws -> Bool {
        try await database.read("see whether this counter has cards or customers") { db in
            try Bool.fetchOne(
                db,
                sql: """
                    SELECT EXISTS (SELECT 1 FROM customer) OR EXISTS (SELECT 1 FROM card)
                        OR EXISTS (SELECT 1 FROM product) OR EXISTS (SELECT 1 FROM repair_order)
                    """) ?? false
        }
    }

    package func apply(_ batch: ReplicaBatch) async throws {
        let nowMs = StoreTime.milliseconds(Date())
        let catalog = self.catalog
        defer { if !batch.products.isEmpty || !batch.goneProducts.isEmpty { catalog.cache.invalidate() } }
        let rows =
            batch.products.count + batch.goneProducts.count + batch.cards.count + batch.customers.count
            + batch.orders.reduce(0) { $0 + 1 + $1.devices.count }
        let checkpoint = database.checkpointDue(afterWriting: rows)
        // Lookups search the log before the file: once the copy pauses, empty it.
        defer { if !checkpoint && rows > 0 { database.checkpointInBackground() } }
        try await database.write("copy the shop's changes", checkpoint: checkpoint) { db in
            let removeProduct = try db.cachedStatement(sql: "DELETE FROM product WHERE id = ?")
            for id in batch.goneProducts { try removeProduct.execute(arguments: [id]) }
            let staleKeys = try db.cachedStatement(
                sql: """
                    DELETE FROM product WHERE id <> ?1 AND storeId = ?2
                    AND ((gtin IS NOT NULL AND gtin = ?3) OR (sku IS NOT NULL AND sku = ?4))
                    """)
            for shop in batch.products {
                try staleKeys.execute(arguments: [
                    shop.product.id, ProductRecord.storeColumn(shop.product.storeId), shop.gtin, shop.product.sku,
                ])
            }
            try catalog.store(batch.products.map(\.product), gtins: batch.products.map(\.gtin), nowMs: nowMs, db)
            try Self.apply(orders: batch.orders, gone: batch.goneOrders, db)
            // Customers first, for the cards that name them; cards gone before their customer.
            for customer in batch.customers { try CustomerRecord.replace(customer, db) }
            let removeCard = try db.cachedStatement(sql: "DELETE FROM card WHERE uid = ?")
            for uid in batch.goneCards { try removeCard.execute(arguments: [uid]) }
            for card in batch.cards {
                try removeCard.execute(arguments: [card.uid.hex])
                try CardRecord(card).insert(db)
            }
            for wallet in batch.goneCustomers {
                try db.cachedStatement(sql: "DELETE FROM card WHERE walletAddress = ?").execute(arguments: [wallet])
                try db.cachedStatement(sql: "DELETE FROM customer WHERE walletAddress = ?").execute(arguments: [wallet])
            }
            try db.execute(
                sql: """
                    INSERT INTO shop_replica (one, shopId, lastChange, lastChangeStamp) VALUES (1, ?, ?, ?)
                    ON CONFLICT (one) DO UPDATE SET
                        shopId = excluded.shopId, lastChange = excluded.lastChange,
                        lastChangeStamp = excluded.lastChangeStamp
                    """, arguments: [batch.through.shop, batch.through.lastChange, batch.through.stamp])
        }
    }

    package func heldCustomers(after: String, limit: Int) async throws -> [Customer] {
        try await database.read("read this counter's customers") { db in
            try CustomerRecord.fetchAll(
                db, sql: "SELECT \(CustomerRecord.columns) FROM customer WHERE walletAddress > ? ORDER BY walletAddress LIMIT ?",
                arguments: [after, limit]
            ).map(\.customer)
        }
    }

    package func heldKeys(of table: ShopTable, after: String, limit: Int) async throws -> [String] {
        let (name, key) =
            switch table {
            case .customers: ("customer", "walletAddress")
            case .cards: ("card", "uid")
            case .products: ("product", "id")
            case .orders: ("repair_order", "id")
            }
        return try await database.read("read this counter's \(table.rawValue)") { db in
            try String.fetchAll(
                db, sql: "SELECT \(key) FROM \(name) WHERE \(key) > ? ORDER BY \(key) LIMIT ?", arguments: [after, limit])
        }
    }

    package func heldProducts(after: String, limit: Int) async throws -> [Product] {
        try await catalog.products(storeId: nil, after: after, limit: limit)
    }

    package func heldOrders(after: String, limit: Int) async throws -> [RepairOrder] {
        try await database.read("read this counter's repair orders") { db in
            try String.fetchAll(
                db, sql: "SELECT id FROM repair_order WHERE id > ? ORDER BY id LIMIT ?", arguments: [after, limit]
            )
            .compactMap { try RepairOrderRecord.fetch(id: $0, db) }
        }
    }

    /// Orders as the shop has them: what holds their reference or a device's id under
    /// another order is stale here, and goes first.
    private static func apply(orders: [RepairOrder], gone: [String], _ db: Database) throws {
        let remove = try db.cachedStatement(sql: "DELETE FROM repair_order WHERE id = ?")
        for id in gone { try remove.execute(arguments: [id]) }
        let staleReference = try db.cachedStatement(sql: "DELETE FROM repair_order WHERE reference = ? AND id <> ?")
        let staleDevice = try db.cachedStatement(sql: "DELETE FROM repair_device WHERE id = ? AND orderId <> ?")
        for order in orders {
            try staleReference.execute(arguments: [order.reference, order.id])
            for device in order.devices { try staleDevice.execute(arguments: [device.id, order.id]) }
        }
        for (index, order) in orders.enumerated() {
            try SQLiteOrderRepository.upsert(order, at: index, of: orders, db)
            // As the shop has it, not the first time this counter saw the order.
            try db.cachedStatement(sql: "UPDATE repair_order SET createdAtMs = ? WHERE id = ?").execute(arguments: [
                StoreTime.milliseconds(order.createdAt), order.id,
            ])
        }
    }

    package func heldCards(after: String, limit: Int) async throws -> [Card] {
        try await database.read("read this counter's cards") { db in
            try CardRecord.fetchAll(
                db, sql: "SELECT \(CardRecord.columns) FROM card WHERE uid > ? ORDER BY uid LIMIT ?", arguments: [after, limit]
            ).map(\.card)
        }
    }
}
