package import ScanBridgeModel

/// This counter's copy of the shop's catalog, cards, customers and repair orders, written only as the
/// shop's store says, one batch of its change log at a time. The repositories read it as
/// they read their own.
package protocol ShopReplicaStore: Sendable {
    /// The shop whose replica this is and the last change held; nil while the cards and
    /// customers here are this counter's own.
    func position() async throws -> ReplicaPosition?
    /// Whether this counter holds any product, card, customer or repair order.
    func holdsAny() async throws -> Bool
    /// Applies the batch and moves the position to its end, in one transaction.
    func apply(_ batch: ReplicaBatch) async throws
    /// The customers held, in wallet order after `after`, at most `limit`: what a move to
    /// the shop's store takes there.
    func heldCustomers(after: String, limit: Int) async throws -> [Customer]
    /// The products held, in id order after `after`, at most `limit`.
    func heldProducts(after: String, limit: Int) async throws -> [Product]
    /// The repair orders held, with their devices, in id order after `after`, at most `limit`.
    func heldOrders(after: String, limit: Int) async throws -> [RepairOrder]
    /// The cards held, in UID order after `after` (uppercase hex), at most `limit`.
    func heldCards(after: String, limit: Int) async throws -> [Card]
    /// The keys held of `table`, in byte order after `after`, at most `limit`: what a
    /// snapshot of the shop's store asks it still has.
    func heldKeys(of table: ShopTable, after: String, limit: Int) async throws -> [String]
}

/// The shop's tables a replica holds rows of.
package enum ShopTable: String, Sendable, CaseIterable {
    case customers, cards, products, orders
}

/// Where a replica stands in its shop's change log.
package struct ReplicaPosition: Sendable, Hashable {
    package var shop: String
    package var lastChange: Int64
    /// When the shop's store made that change (microseconds since 1970; 0 for none): a log
    /// rewound under the same shop (a database restored from a backup) has another change
    /// there, or none.
    package var stamp: Int64

    package init(shop: String, lastChange: Int64, stamp: Int64) {
        self.shop = shop
        self.lastChange = lastChange
        self.stamp = stamp
    }
}

/// Rows as the shop's store holds them after some of its changes: put the rows found,
/// remove the keys gone; then the replica stands at `through`.
package struct ReplicaBatch: Sendable {
    package var customers: [Customer] = []
    package var cards: [Card] = []
    /// Wallets whose customer is gone; their cards go with them.
    package var goneCustomers: [String] = []
    /// Card UIDs (uppercase hex) whose card is gone.
    package var goneCards: [String] = []
    /// Products as they are; a product here that holds one of their keys (GTIN or SKU in a
    /// store) under another id is stale, and gives way.
    package var products: [ShopProduct] = []
    /// Ids of the products gone.
    package var goneProducts: [String] = []
    /// Repair orders with their devices, as they are; an order here that holds one of their
    /// keys (reference, a device's id) under another id is stale, and gives way.
    package var orders: [RepairOrder] = []
    /// Ids of the orders gone, with their devices.
    package var goneOrders: [String] = []
    package var through: ReplicaPosition

    package init(through: ReplicaPosition) {
        self.through = through
    }
}

/// A product as the shop's store holds it: with its `gtin` column as stored there, which
/// the store's unique key is on (the back office may have typed it by hand), rather than
/// worked out again from the barcode here.
package struct ShopProduct: Sendable, Hashable {
    package var product: Product
    package var gtin: String?

    package init(product: Product, gtin: String?) {
        self.product = product
        self.gtin = gtin
    }
}
