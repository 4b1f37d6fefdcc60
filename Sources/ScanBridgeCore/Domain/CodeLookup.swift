public import ScanBridgeModel

/// Looks a typed or scanned code up the way a domain handler resolves a scan, without
/// journaling anything: `products.lookup` and `orders.lookup` answer with exactly what
/// the handler would put in an event's resolution.
public protocol CodeLookup: Sendable {
    /// The resolution for `code` (its `handler` left nil): `found`, `not_found` or `invalid`.
    func lookup(code: String) async throws -> Resolution
}
