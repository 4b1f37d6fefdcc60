import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeRPC

/// `products.lookup`, `products.upsert`, `products.delete`.
enum ProductMethods {
    static let all: [String: RPCMethod] = [
        "products.lookup": { params, connection in
            let code = try params.requiredText("code", maxLength: 8192)
            let resolution = try await DomainMethod.services(connection).productLookup.lookup(code: code)
            return MethodOutcome(DomainMethod.lookupResult(resolution))
        },
        "products.upsert": { params, connection in
            let domain = try DomainMethod.services(connection)
            let products = try DomainMethod.oneOrMany(params, single: "product", plural: "products") {
                fields throws(ScanBridgeError) in
                try Product(input: fields, settings: domain.catalog)
            }
            let stored = try await DomainMethod.batch(single: "product", plural: "products", isBatch: params.has("products")) {
                try await domain.repositories.products.upsert(products)
            }
            // A product of another store is stored but never found here: say so, rather than
            // let an integrator load a catalog that silently finds nothing.
            let elsewhere = stored.filter { !$0.isVisible(to: domain.catalog.storeId) }.map { JSONValue.string($0.id) }
            return MethodOutcome(
                .object([
                    ("products", .value(.array(stored.map(\.wire)))), ("notVisibleHere", .value(.array(elsewhere))),
                ]))
        },
        "products.delete": { params, connection in
            let id = try params.requiredText("id", maxLength: 128)
            guard try await DomainMethod.services(connection).repositories.products.delete(id: id) else {
                throw ScanBridgeError.notFound("no product '\(id)'; products.lookup finds a product's id by its barcode")
            }
            return MethodOutcome(.emptyObject)
        },
    ]
}
