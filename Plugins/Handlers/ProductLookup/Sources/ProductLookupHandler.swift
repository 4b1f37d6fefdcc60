import ScanBridgeCore

/// The built-in `product-lookup` handler: barcodes that name a product (EAN/UPC/ITF-14,
/// GS1 element strings with AI 01, GS1 Digital Links, catalog SKUs) resolve to it.
public struct ProductLookupHandler: ScanHandler {
    public let name = "product-lookup"
    public let priority = 0
    public let lookup: ProductLookup

    public init(lookup: ProductLookup) {
        self.lookup = lookup
    }

    public func accepts(_ event: ScanEvent) -> Bool {
        event.kind != .nfc && lookup.classify(event.text, symbology: event.symbology, aim: event.aim) != nil
    }

    public func resolve(_ event: ScanEvent) async throws -> Resolution {
        try await resolveIfAccepted(event)
            ?? Resolution(handler: name, status: "invalid", details: ["reason": "not a product code"])
    }

    /// Reads the code once, to decide and to look it up.
    public func resolveIfAccepted(_ event: ScanEvent) async throws -> Resolution? {
        guard event.kind != .nfc, let code = lookup.classify(event.text, symbology: event.symbology, aim: event.aim) else {
            return nil
        }
        return try await lookup.resolve(code)
    }
}
