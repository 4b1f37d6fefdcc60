package import Logging
package import ScanBridgeModel
import Synchronization

/// Routes each event by content to the first handler (highest priority, then first
/// registered) that accepts it. Handlers come and go at run time (out-of-process plugins).
package final class Router: Sendable {
    /// Identifies one registration, to remove it later.
    package struct Registration: Hashable, Sendable {
        let number: Int
    }

    private struct Entry: Sendable {
        let registration: Registration
        let handler: any ScanHandler
    }

    private struct State {
        var entries: [Entry] = []
        var nextNumber = 0
    }

    private let state = Mutex(State())
    private let logger: Logger
    private let metrics: ScanMetrics
    /// Whether the shop's shared store is away: the built-in handlers then resolve from this
    /// counter's copy of it, and their resolutions say so (`"offline": true`).
    private let offline: @Sendable () -> Bool
    /// Run on every event before it is routed, in order.
    private let checks: [any ScanEventCheck]

    package init(
        handlers: [any ScanHandler] = [], checks: [any ScanEventCheck] = [],
        logger: Logger = Logger(label: "scanbridge.router"), metrics: ScanMetrics = .none,
        offline: @escaping @Sendable () -> Bool = { false }
    ) {
        self.logger = logger
        self.metrics = metrics
        self.offline = offline
        self.checks = checks
        for handler in handlers { register(handler) }
    }

    @discardableResult
    package func register(_ handler: any ScanHandler) -> Registration {
        state.withLock { state in
            let registration = Registration(number: state.nextNumber)
            state.nextNumber += 1
            state.entries.append(Entry(registration: registration, handler: handler))
            // Stable: equal priorities keep registration order.
            state.entries = state.entries.enumerated()
                .sorted { ($0.element.handler.priority, -$0.offset) > ($1.element.handler.priority, -$1.offset) }
                .map(\.element)
            return registration
        }
    }

    package func unregister(_ registration: Registration) {
        state.withLock { $0.entries.removeAll { $0.registration == registration } }
    }

    /// Handler names in routing order.
    package var handlerNames: [String] {
        state.withLock { $0.entries.map(\.handler.name) }
    }

    /// The names of the handlers that resolve inside the daemon: the built-in ones, whose
    /// names an out-of-process handler may not take.
    package var inProcessHandlerNames: Set<String> {
        state.withLock { Set($0.entries.filter(\.handler.resolvesInProcess).map(\.handler.name)) }
    }

    /// The resolution of the first accepting handler; `unhandled` when none accepts.
    /// A failing handler gives an `error` resolution: the event is never lost.
    package func resolve(_ event: ScanEvent) async -> Resolution {
        let entries = state.withLock { $0.entries }
        for entry in entries {
            let handler = entry.handler
            do {
                guard var resolution = try await handler.resolveIfAccepted(event) else { continue }
                resolution.handler = handler.name
                if handler.resolvesInProcess && offline() { resolution.details["offline"] = .bool(true) }
                // An out-of-process handler's silence or garbage is a resolution, not a throw.
                switch resolution.status {
                case "timeout": metrics.handlerTimedOut(handler.name)
                case "error": metrics.handlerFailed(handler.name)
                default: break
                }
                return resolution
            } catch {
                logger.error(
                    "handler failed",
                    metadata: [
                        "handler": "\(handler.name)", "event.id": "\(event.id)",
                        "error": "\(error)",
                    ])
                metrics.handlerFailed(handler.name)
                return .error(handler: handler.name, message: "\(error)")
            }
        }
        return .unhandled
    }

    /// Runs the checks on each event (`ScanEventCheck`), before any handler sees it.
    package func check(_ events: inout [ScanEvent]) async {
        guard !checks.isEmpty else { return }
        for index in events.indices {
            for check in checks { await check.check(&events[index]) }
        }
    }

    /// The resolutions of many events, in their order: one after another while every handler
    /// resolves in process (no task per event), concurrently when one may wait on a client.
    package func resolve(_ events: [ScanEvent]) async -> [Resolution] {
        let inProcess = state.withLock { $0.entries.allSatisfy(\.handler.resolvesInProcess) }
        if inProcess || events.count < 2 {
            var resolutions: [Resolution] = []
            resolutions.reserveCapacity(events.count)
            for event in events { resolutions.append(await resolve(event)) }
            return resolutions
        }
        return await withTaskGroup(of: (Int, Resolution).self) { group in
            for (index, event) in events.enumerated() {
                group.addTask { (index, await self.resolve(event)) }
            }
            var resolutions = [Resolution](repeating: .unhandled, count: events.count)
            for await (index, resolution) in group { resolutions[index] = resolution }
            return resolutions
        }
    }
}
