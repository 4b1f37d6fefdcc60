import Foundation
package import ScanBridgeModel
import Synchronization

/// A journal in memory, for tests and tools: the same contract as the SQLite journal,
/// without durability.
package final class MemoryJournal: Journal {
    private struct State {
        var events: [JournaledEvent] = []
        var lastSeq: UInt64 = 0
    }

    private let state = Mutex(State())
    private let onCommit: @Sendable ([JournaledEvent]) -> Void
    private let retention: Int

    /// - Parameter onCommit: receives each stored event, in `seq` order (the publisher).
    package init(retention: Int = .max, onCommit: @escaping @Sendable ([JournaledEvent]) -> Void) {
        self.retention = retention
        self.onCommit = onCommit
    }

    package var latestSeq: UInt64 { state.withLock { $0.lastSeq } }

    package func append(contentsOf events: [ScanEvent]) async throws -> [JournaledEvent] {
        state.withLock { state in
            let stored = events.map { event in
                var event = event
                event.seq = state.lastSeq + 1
                state.lastSeq = event.seq
                return JournaledEvent(seq: event.seq, kind: event.kind, device: event.device, json: event.json())
            }
            state.events.append(contentsOf: stored)
            if state.events.count > retention { state.events.removeFirst(state.events.count - retention) }
            // Inside the lock, so commits reach the observer in seq order.
            if !stored.isEmpty { onCommit(stored) }
            return stored
        }
    }

    package func events(after: UInt64, through: UInt64, filter: SubscriptionFilter, limit: Int, maxBytes: Int)
        async throws -> [JournaledEvent]
    {
        state.withLock { state in
            let matching = state.events.lazy.filter { $0.seq > after && $0.seq <= through && filter.matches($0) }
            return matching.prefix(limit).prefix(maxBytes: maxBytes)
        }
    }

    package func recent(limit: Int, kinds: Set<DeviceKind>?, maxBytes: Int) async throws -> [JournaledEvent] {
        state.withLock { state in
            let newest = state.events.lazy.reversed().filter { kinds?.contains($0.kind) ?? true }.prefix(limit)
            return newest.prefix(maxBytes: maxBytes).reversed()
        }
    }

    package func rewrite(containing needle: [UInt8], _ rewrite: @escaping @Sendable (ScanEvent) -> ScanEvent?) async throws
        -> Int
    {
        state.withLock { state in
            var count = 0
            for index in state.events.indices where state.events[index].json.contains(needle) {
                guard let rewritten = state.events[index].rewritten(rewrite) else { continue }
                state.events[index] = rewritten
                count += 1
            }
            return count
        }
    }

    package func oldestRetainedSeq() async throws -> UInt64? {
        state.withLock { $0.events.first?.seq }
    }
}
