import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeRPC

/// `store.migrate`: brings the shop's schema up to date as its owner when given one, then
/// moves this counter's own data into the shop's shared store, which this daemon then
/// follows (admin, by `MethodCatalog`'s default: the owner's password travels in it).
enum StoreMethods {
    static let all: [String: RPCMethod] = [
        "store.migrate": { params, connection in
            guard let shared = connection.services.sharedStore else {
                throw ScanBridgeError.invalidParams(
                    "this daemon uses no shop's store: set store.url (or --store) to it, restart the daemon, then migrate",
                    field: "to")
            }
            var migrated: [Int] = []
            if let owner = try params.text("owner", maxLength: 1024) {
                migrated = try await shared.migrateSchema(
                    owner: owner, password: try params.string("ownerPassword").map { String($0.prefix(1024)) })
            }
            let moved = try await shared.moveOwnData(expecting: try params.string("to"))
            return MethodOutcome(
                .object([
                    ("products", .int(moved.products)), ("customers", .int(moved.customers)), ("cards", .int(moved.cards)),
                    ("orders", .int(moved.orders)), ("migrated", .array(migrated.map { .int($0) })),
                ]))
        }
    ]
}
