import ScanBridgeCore
package import ScanBridgeModel

/// The built-in `product-lookup` handler: barcodes that name a product (EAN/UPC/ITF-14,
/// GS1 element strings with AI 01, GS1 Digital Links, catalog SKUs) resolve to it.
package struct ProductLookupHandler: ScanHandler {
    package let name = "product-lookup"
    package let priority = 0
    package let lookup: ProductLookup

    package init(lookup: ProductLookup) {
        self.lookup = lookup
    }

    package func accepts(_ event: ScanEvent) -> Bool {
        event.kind != .nfc && lookup.classify(event.text, symbology: event.symbology, aim: event.aim) != nil
    }

    package func resolve(_ event: ScanEvent) async throws -> Resolution {
        try await resolveIfAccepted(event)
            ?? Resolution(handler: name, status: "invalid", details: ["reason": "not a product code"])
    }

    /// Reads the code once, to decide and to look it up.
    package func resolveIfAccepted(_ event: ScanEvent) async throws -> Resolution? {
        guard event.kind != .nfc, let code = lookup.classify(event.text, symbology: event.symbology, aim: event.aim) else {
            return nil
        }
        return try await lookup.resolve(code)
    }
}
