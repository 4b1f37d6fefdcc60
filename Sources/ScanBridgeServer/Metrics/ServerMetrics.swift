package import CoreMetrics
import ScanBridgeCore

/// What the servers record: connections open by transport, and what they refused and why.
/// The Unix socket calls it now; the gateway calls the same methods for its transports.
/// Every series is made up front, so a dashboard sees each transport and reason at 0.
package final class ServerMetrics: Sendable {
    /// How a client is connected.
    package enum Transport: String, Sendable, CaseIterable {
        case unix, websocket, sse, http
    }

    /// Why a connection or a request was refused.
    package enum RefusalReason: String, Sendable, CaseIterable {
        /// A limit on connections or on pending requests, subscriptions or handlers.
        case overloaded
        /// The peer's role does not allow it.
        case forbidden
        /// No valid token (the gateway).
        case unauthorized
        /// A line or a batch past its bound.
        case tooLarge = "too_large"
    }

    /// Records nothing: for servers whose metrics no one reads.
    package static let none = ServerMetrics(factory: NOOPMetricsHandler.instance)

    private let connections: [Meter]
    private let refusals: [Counter]

    package init(factory: any MetricsFactory) {
        connections = Transport.allCases.map {
            Meter(label: MetricSeries.connections.name, dimensions: [("transport", $0.rawValue)], factory: factory)
        }
        refusals = RefusalReason.allCases.map {
            Counter(label: MetricSeries.requestsRefused.name, dimensions: [("reason", $0.rawValue)], factory: factory)
        }
    }

    /// A client connected over `transport`; call `disconnected(_:)` when it goes.
    package func connected(_ transport: Transport) {
        connections[Self.index(transport)].increment()
    }

    package func disconnected(_ transport: Transport) {
        connections[Self.index(transport)].decrement()
    }

    /// Counts the client as connected over `transport` while `body` runs.
    package func whileConnected<T>(_ transport: Transport, _ body: () async throws -> T) async rethrows -> T {
        connected(transport)
        defer { disconnected(transport) }
        return try await body()
    }

    package func refused(_ reason: RefusalReason) {
        refusals[Self.index(reason)].increment()
    }

    // Switches rather than `allCases.firstIndex`: `allCases` builds an array on every call.
    private static func index(_ transport: Transport) -> Int {
        switch transport {
        case .unix: 0
        case .websocket: 1
        case .sse: 2
        case .http: 3
        }
    }

    private static func index(_ reason: RefusalReason) -> Int {
        switch reason {
        case .overloaded: 0
        case .forbidden: 1
        case .unauthorized: 2
        case .tooLarge: 3
        }
    }
}
