public import ScanBridgeModel

/// A domain handler: takes the events whose content it understands and resolves them
/// (a product lookup, a card link, an order lookup, or an out-of-process plugin).
public protocol ScanHandler: Sendable {
    /// The name reported in `resolution.handler` (`product-lookup`).
    var name: String { get }
    /// Higher goes first; built-in handlers have priority 0.
    var priority: Int { get }
    /// Whether this handler takes the event, judged by content alone.
    func accepts(_ event: ScanEvent) -> Bool
    /// Resolves an accepted event. A thrown error becomes a resolution with status `error`.
    func resolve(_ event: ScanEvent) async throws -> Resolution
    /// The resolution when the handler takes the event, nil when it does not: what the
    /// router asks. Handlers that read the content to decide (parse a barcode) implement
    /// it to read it once; by default it is `accepts` then `resolve`.
    func resolveIfAccepted(_ event: ScanEvent) async throws -> Resolution?
    /// Whether resolving never waits on anything outside the daemon. The router resolves a
    /// batch of events one after another while every handler does, and concurrently when one
    /// does not (an out-of-process handler may take its whole timeout). True by default.
    var resolvesInProcess: Bool { get }
}

extension ScanHandler {
    public var resolvesInProcess: Bool { true }

    public func resolveIfAccepted(_ event: ScanEvent) async throws -> Resolution? {
        guard accepts(event) else { return nil }
        return try await resolve(event)
    }
}

/// Which events a handler takes: kinds, symbologies, and a pattern found anywhere in the text.
public struct HandlerMatch: Sendable {
    public var kinds: Set<DeviceKind>?
    public var symbologies: Set<String>?
    public var pattern: TextPattern?

    public init(kinds: Set<DeviceKind>? = nil, symbologies: Set<String>? = nil, pattern: TextPattern? = nil) {
        self.kinds = kinds
        self.symbologies = symbologies
        self.pattern = pattern
    }

    public func accepts(_ event: ScanEvent) -> Bool {
        if let kinds, !kinds.contains(event.kind) { return false }
        if let symbologies, !symbologies.contains(event.symbology) { return false }
        if let pattern, !pattern.matches(event.text) { return false }
        return true
    }
}
