import ScanBridgeCodes
import ScanBridgeModel

/// This counter's copy of the shop's cards and customers, written only as the shop's store
/// says: rows put as they are there, rows removed when they are gone. The card and customer
/// repositories read it as they read their own.
package protocol CardReplicaStore: Sendable {
    /// Puts each customer as it is (replacing the row, not merging it).
    func put(customers: [Customer]) async throws
    /// Puts each card as it is; its customer is already here.
    func put(cards: [Card]) async throws
    func remove(cardUIDs: [NFCUID]) async throws
    /// Removes the customers and any card still linked to them.
    func remove(customerWallets: [String]) async throws
    /// Every key held, for a full synchronisation to remove what the shop no longer has.
    func keys() async throws -> (customerWallets: Set<String>, cardUIDs: Set<String>)
}
