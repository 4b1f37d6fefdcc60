import PostgresNIO
import ScanBridgeCore
import ScanBridgeModel
import Synchronization

/// The catalog with a shared store: lookups and listings read this counter's replica, so a
/// scan never waits on the network; writes go to the shop's store in one transaction and
/// are read back here once the replica has followed them. Staging stays on this counter
/// (the client's connection is here); its commit is the shop's.
struct SharedProductRepository: ProductRepository {
    let local: any ProductRepository
    let writes: SharedWrites
    let shared: SharedProducts

    /// Products sent to the shop's store at a time.
    static let page = 1000

    func product(id: String) async throws -> Product? { try await local.product(id: id) }

    func product(_ key: ProductKey, visibleTo store: String?) async throws -> Product? {
        try await local.product(key, visibleTo: store)
    }

    func count() async throws -> Int { try await local.count() }

    func products(storeId: String?, after: String?, limit: Int) async throws -> [Product] {
        try await local.products(storeId: storeId, after: after, limit: limit)
    }

    func upsert(_ products: [Product]) async throws -> [Product] {
        guard !products.isEmpty else { return [] }
        try await writes.run(
            "save the products", within: .seconds(60),
            locate: { constraint, key in
                if constraint.contains("gtin"), let index = products.lastIndex(where: { $0.gtin == key }) {
                    return "[\(index)].barcode"
                }
                if constraint.contains("sku"), let index = products.lastIndex(where: { $0.sku == key }) {
                    return "[\(index)].sku"
                }
                return nil
            }
        ) { [shared] _, connection in
            for start in stride(from: 0, to: products.count, by: Self.page) {
                try await shared.upsert(Array(products[start..<min(start + Self.page, products.count)]), on: connection)
            }
        }
        return products
    }

    func delete(id: String) async throws -> Bool {
        try await writes.run("delete a product") { [shared] in try await shared.delete(id: id, on: $1) }
    }

    func stage(_ products: [Product], in stage: String) async throws {
        try await local.stage(products, in: stage)
    }

    func discardStaged(_ stage: String) async throws {
        try await local.discardStaged(stage)
    }

    /// One transaction in the shop's store: the staged products are copied there first into
    /// a table of the transaction's own, a page at a time, before it waits for its turn, so
    /// other counters' writes wait only for the prune and the one statement that stores
    /// them. The staging area here is emptied only once it has committed.
    func commitStaged(_ stage: String, pruning: Bool) async throws -> StagedCommit {
        let staged = Counted()
        let committed = try await writes.run(
            "replace the catalog", within: .seconds(1800),
            before: { [local, shared] connection in
                // The commit's statements take as long as the catalog is large; a server that
                // finds the daemon gone (its deadline) stops, rather than hold the turn on.
                try await connection.query("SET LOCAL statement_timeout = '30min'", logger: shared.logger)
                try await connection.query("SET LOCAL client_connection_check_interval = '5s'", logger: shared.logger)
                try await shared.createStaging(on: connection)
                var after = ""
                while true {
                    let page = try await local.staged(stage, after: after, limit: Self.page)
                    guard let last = page.last else { break }
                    try await shared.stage(page, on: connection)
                    staged.add(page.count)
                    after = last.id
                }
                try await connection.query("ANALYZE scanbridge_staged", logger: shared.logger)
            }
        ) { [shared] _, connection in
            staged.count == 0 ? nil : try await shared.commitStaged(pruning: pruning, on: connection)
        }
        try await local.discardStaged(stage)
        guard let committed else { return StagedCommit(storeId: nil, stored: 0, deleted: 0) }
        return StagedCommit(
            storeId: committed.store.isEmpty ? nil : committed.store, stored: staged.count, deleted: committed.deleted)
    }
}

/// A count kept across a transaction's closures.
private final class Counted: Sendable {
    private let value = Mutex(0)
    var count: Int { value.withLock { $0 } }
    func add(_ more: Int) { value.withLock { $0 += more } }
}
