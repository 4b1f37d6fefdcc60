import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeRPC

/// `store.migrate`: moves this counter's own cards and customers into the shop's shared
/// store, which this daemon then follows (admin, by `MethodCatalog`'s default).
enum StoreMethods {
    static let all: [String: RPCMethod] = [
        "store.migrate": { params, connection in
            guard let shared = connection.services.sharedStore else {
                throw ScanBridgeError.invalidParams(
                    "this daemon uses no shop's store: set store.url (or --store) to it, restart the daemon, then migrate",
                    field: "to")
            }
            let moved = try await shared.moveOwnData(expecting: try params.string("to"))
            return MethodOutcome(
                .object([
                    ("products", .int(moved.products)), ("customers", .int(moved.customers)), ("cards", .int(moved.cards)),
                    ("orders", .int(moved.orders)),
                ]))
        }
    ]
}
