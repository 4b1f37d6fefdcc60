import Synchronization

/// The bytes waiting in every connection's outbox together, bounded by
/// `server.total_buffer_bytes`: each connection's own bound (`server.connection_buffer_bytes`)
/// times every connection the daemon allows would be far more than its memory. Under pressure
/// the largest outbox gives way first: its subscriptions' queued events are dropped and they
/// overflow (`Outbox.shed`), so a client that reads keeps its events while the ones that do
/// not lose theirs. Answers are counted, never dropped: a connection stops reading requests
/// when its own outbox is full.
package final class BufferBudget: Sendable {
    package let capacity: Int

    private struct State {
        var total = 0
        /// Outboxes with bytes waiting, and how many; one leaves when it has none.
        var waiting: [ObjectIdentifier: (outbox: Outbox, bytes: Int)] = [:]
    }

    private let state = Mutex(State())

    package init(capacity: Int) {
        self.capacity = capacity
    }

    /// What `admit` decided about an event or notice for `outbox`.
    enum Verdict {
        case fits
        /// No room, and `outbox` is the largest: the item overflows its subscription.
        case refused
        /// No room, but another outbox is larger: it is to shed, and the item goes in.
        case fitsOnceShed(Outbox)
    }

    /// Whether `bytes` more may wait in `outbox`. Called under the outbox's lock.
    func admit(_ bytes: Int, to outbox: Outbox) -> Verdict {
        state.withLock { state in
            guard state.total + bytes > capacity else { return .fits }
            let own = state.waiting[ObjectIdentifier(outbox)]?.bytes ?? 0
            guard let largest = state.waiting.values.max(by: { $0.bytes < $1.bytes }), largest.bytes > own + bytes
            else { return .refused }
            return .fitsOnceShed(largest.outbox)
        }
    }

    /// `outbox` holds `change` bytes more (or fewer). Called under the outbox's lock.
    func change(_ outbox: Outbox, by change: Int) {
        guard change != 0 else { return }
        state.withLock { state in
            state.total += change
            let key = ObjectIdentifier(outbox)
            let bytes = (state.waiting[key]?.bytes ?? 0) + change
            state.waiting[key] = bytes > 0 ? (outbox, bytes) : nil
        }
    }

    /// Every byte of it waits: a replay waits for room rather than make an outbox shed.
    var isSpent: Bool { state.withLock { $0.total >= capacity } }

    /// Bytes waiting in every outbox.
    package var total: Int { state.withLock { $0.total } }
}
