import ScanBridgeCore

/// The built-in `order-lookup` handler: QR codes and labels that name a repair order or a
/// tagged device resolve to them.
public struct OrderLookupHandler: ScanHandler {
    public let name = "order-lookup"
    public let priority = 0
    public let lookup: OrderLookup

    public init(lookup: OrderLookup) {
        self.lookup = lookup
    }

    public func accepts(_ event: ScanEvent) -> Bool {
        event.kind != .nfc && lookup.classify(scanned: event.text) != nil
    }

    public func resolve(_ event: ScanEvent) async throws -> Resolution {
        try await resolveIfAccepted(event)
            ?? Resolution(handler: name, status: "invalid", details: ["reason": "not an order code"])
    }

    /// Reads the code once, to decide and to look it up.
    public func resolveIfAccepted(_ event: ScanEvent) async throws -> Resolution? {
        guard event.kind != .nfc, let code = lookup.classify(scanned: event.text) else { return nil }
        return try await lookup.resolve(code)
    }
}
