import ScanBridgeCore
import ScanBridgeModel

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
        try await writes.run("save the products", within: .seconds(60)) { [shared] _, connection in
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

    /// One transaction in the shop's store, a page of staged products at a time; the
    /// staging area is emptied only once it has committed.
    func commitStaged(_ stage: String, pruning: Bool) async throws -> StagedCommit {
        let commit = try await writes.run("replace the catalog", within: .seconds(1800)) {
            [local, shared] _, connection in
            try await connection.query(
                "CREATE TEMPORARY TABLE scanbridge_staged (id text PRIMARY KEY) ON COMMIT DROP", logger: shared.logger)
            var commit = StagedCommit(storeId: nil, stored: 0, deleted: 0)
            var store: String?
            var after = ""
            while true {
                let page = try await local.staged(stage, after: after, limit: Self.page)
                guard let last = page.last else { break }
                let pageStore = store ?? page[0].storeId ?? ""
                if let other = page.first(where: { ($0.storeId ?? "") != pageStore }) {
                    throw ScanBridgeError.conflict(
                        "the staged products belong to more than one store (\(pageStore.isEmpty ? "none" : pageStore), "
                            + "\(other.storeId ?? "none"), …); a catalog is replaced one store at a time")
                }
                store = pageStore
                try await shared.upsert(page, on: connection)
                try await shared.remember(ids: page.map(\.id), in: "scanbridge_staged", on: connection)
                commit.stored += page.count
                after = last.id
            }
            guard let store else { return commit }
            commit.storeId = store.isEmpty ? nil : store
            if pruning {
                commit.deleted = try await shared.deleteAll(ofStore: store, besides: "scanbridge_staged", on: connection)
            }
            return commit
        }
        try await local.discardStaged(stage)
        return commit
    }
}
