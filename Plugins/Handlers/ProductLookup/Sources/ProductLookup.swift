import ScanBridgeCodes
package import ScanBridgeCore
package import ScanBridgeModel

/// Finds the product a code names among the products this daemon's store sees (every
/// product when it has none, `ProductRepository.product(_:visibleTo:)`), and says what was found
/// the same way for a scan (`product-lookup` resolution) and a typed code (`products.lookup`).
package struct ProductLookup: CodeLookup {
    let products: any ProductRepository
    let catalog: CatalogSettings
    var region: VariableMeasure.Region { catalog.region }

    package init(products: any ProductRepository, catalog: CatalogSettings) {
        self.products = products
        self.catalog = catalog
    }

    package func classify(_ text: String, symbology: String?, aim: String?) -> ProductCode? {
        ProductCode.classify(text: text, symbology: symbology, aim: aim, region: region)
    }

    package func lookup(code: String) async throws -> Resolution {
        guard let productCode = classify(code, symbology: nil, aim: nil) else {
            return Resolution(
                handler: nil, status: "invalid",
                details: [
                    "reason": .string(
                        "'\(code)' is neither a GTIN nor a catalog label; give the digits under the barcode or a SKU")
                ])
        }
        return try await resolve(productCode)
    }

    package func resolve(_ code: ProductCode) async throws -> Resolution {
        switch code {
        case .invalid(let reason):
            return Resolution(handler: nil, status: "invalid", details: ["reason": .string(reason)])
        case .gtin(let gtin):
            let product = try await products.product(.gtin(gtin), visibleTo: catalog.storeId)
            return answer(product, details: ["gtin": .string(gtin)], missing: "no product with GTIN \(gtin)")
        case .variableMeasure(let measure, let gtin):
            let product = try await products.product(.gtin(gtin), visibleTo: catalog.storeId)
            var details: [String: JSONValue] = ["gtin": .string(gtin)]
            // A label's price is in the store's currency, as the scan event's `embedded` says; a
            // weight is priced in the product's.
            details["embedded"] = measure.value.embedded(currency: catalog.currency, pricePerKg: product?.price)
            return answer(
                product, details: details,
                missing: "no product with item code \(gtin) (a \(region.code) in-store price or weight barcode)")
        case .label(let label):
            let product = try await products.product(.skuOrBarcode(label), visibleTo: catalog.storeId)
            return answer(product, details: [:], missing: "no product with SKU or barcode '\(label)'")
        }
    }

    private func answer(_ product: Product?, details: [String: JSONValue], missing: String) -> Resolution {
        var details = details
        guard let product else {
            details["reason"] = .string(missing)
            return Resolution(handler: nil, status: "not_found", details: details)
        }
        details["product"] = product.wire
        return Resolution(handler: nil, status: "found", details: details)
    }
}
