import ScanBridgeModel

/// This counter's copy of the shop's cards and customers, written only as the shop's store
/// says, one batch of its change log at a time. The card and customer repositories read it
/// as they read their own.
package protocol CardReplicaStore: Sendable {
    /// The shop whose replica this is and the last change held; nil while the cards and
    /// customers here are this counter's own.
    func position() async throws -> ReplicaPosition?
    /// Whether this counter holds any card or customer.
    func holdsAny() async throws -> Bool
    /// Applies the batch and moves the position to its end, in one transaction.
    func apply(_ batch: ReplicaBatch) async throws
    /// The customers held, in wallet order after `after`, at most `limit`: what a move to
    /// the shop's store takes there.
    func heldCustomers(after: String, limit: Int) async throws -> [Customer]
    /// The cards held, in UID order after `after` (uppercase hex), at most `limit`.
    func heldCards(after: String, limit: Int) async throws -> [Card]
}

/// Where a replica stands in its shop's change log.
package struct ReplicaPosition: Sendable, Hashable {
    package var shop: String
    package var lastChange: Int64

    package init(shop: String, lastChange: Int64) {
        self.shop = shop
        self.lastChange = lastChange
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
    package var through: ReplicaPosition

    package init(through: ReplicaPosition) {
        self.through = through
    }
}
