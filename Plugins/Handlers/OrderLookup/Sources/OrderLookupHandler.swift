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
        guard let code = lookup.classify(scanned: event.text) else {
            return Resolution(handler: name, status: "invalid", details: ["reason": "not an order code"])
        }
        return try await lookup.resolve(code)
    }
}
