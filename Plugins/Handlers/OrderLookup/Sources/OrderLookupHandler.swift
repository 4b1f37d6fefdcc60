import ScanBridgeCore
package import ScanBridgeModel

/// The built-in `order-lookup` handler: QR codes and labels that name a repair order or a
/// tagged device resolve to them.
package struct OrderLookupHandler: ScanHandler {
    package let name = "order-lookup"
    package let priority = 0
    package let lookup: OrderLookup

    package init(lookup: OrderLookup) {
        self.lookup = lookup
    }

    package func accepts(_ event: ScanEvent) -> Bool {
        event.kind != .nfc && lookup.classify(scanned: event.text) != nil
    }

    package func resolve(_ event: ScanEvent) async throws -> Resolution {
        try await resolveIfAccepted(event)
            ?? Resolution(handler: name, status: "invalid", details: ["reason": "not an order code"])
    }

    /// Reads the code once, to decide and to look it up.
    package func resolveIfAccepted(_ event: ScanEvent) async throws -> Resolution? {
        guard event.kind != .nfc, let code = lookup.classify(scanned: event.text) else { return nil }
        return try await lookup.resolve(code)
    }
}
