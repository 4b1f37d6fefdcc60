import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeRPC

/// `products.list`, and the staged replacement of a store's catalog: `products.stage`,
/// `products.commit`.
enum ProductCatalogMethods {
    /// A page of `products.list` stops once its products reach this many bytes of JSON, so
    /// an answer stays well under a client's line limit whatever the products hold.
    static let maxPageBytes = 256 * 1024

    static let all: [String: RPCMethod] = [
        "products.list": { params, connection in
            let domain = try DomainMethod.services(connection)
            let storeId = try params.text("storeId", maxLength: 128)
            let after = try params.text("after", maxLength: 128)
            let limit = Int(try params.integer("limit", in: 1...1000) ?? 100)
            let products = try await domain.repositories.products.products(storeId: storeId, after: after, limit: limit)
            var page: [Payload] = []
            var bytes = 0
            for product in products {
                let json = JSONWriter.bytes(.value(product.wire))
                if !page.isEmpty, bytes + json.count > maxPageBytes { break }
                page.append(.raw(json))
                bytes += json.count + 1
            }
            // A short page ends the catalog only when the store had no more to give.
            let isLast = page.count == products.count && products.count < limit
            let next: JSONValue = isLast ? .null : .string(products[page.count - 1].id)
            return MethodOutcome(.object([("products", .array(page)), ("next", .value(next))]))
        },
        "products.stage": { params, connection in
            let domain = try DomainMethod.services(connection)
            let products = try DomainMethod.oneOrMany(params, single: "product", plural: "products") {
                fields throws(ScanBridgeError) in
                try Product(input: fields, settings: domain.catalog)
            }
            try connection.productStaging.reserve(products)
            try await domain.repositories.products.stage(products, in: connection.productStaging.area)
            return MethodOutcome(.object([("staged", .value(.int(Int64(products.count))))]))
        },
        "products.commit": { params, connection in
            let domain = try DomainMethod.services(connection)
            let prune = try params.bool("prune") ?? false
            let staging = connection.productStaging
            guard staging.isUsed else {
                throw ScanBridgeError.invalidParams(
                    "nothing is staged on this connection: stage the products with products.stage first"
                        + (prune ? "; pruning with nothing staged would delete the whole catalog, so it is refused" : ""),
                    field: "prune")
            }
            let commit = try await domain.repositories.products.commitStaged(staging.area, pruning: prune)
            staging.reset()
            return MethodOutcome(
                .object([
                    ("storeId", .value(commit.storeId.map(JSONValue.string) ?? .null)),
                    ("stored", .value(.int(Int64(commit.stored)))), ("deleted", .value(.int(Int64(commit.deleted)))),
                ]))
        },
    ]
}
