import ScanBridgeCore
import Synchronization

/// The products scans found lately, by lookup key, so the best sellers of a shop are found
/// in memory; a miss reads SQLite. Every catalog write empties it.
///
/// A read that raced a write must not put the old row back: each read notes the
/// generation before it starts, and its answer is kept only if no write ended since.
final class ProductLookupCache: Sendable {
    struct Key: Hashable, Sendable {
        let key: ProductKey
        let storeId: String
    }

    /// Boxed: a `Product` is a few hundred bytes, and a dictionary keeps its values inline,
    /// empty buckets included.
    private final class Entry: Sendable {
        let product: Product?
        init(_ product: Product?) { self.product = product }
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var generation: UInt64 = 0
    }

    private let state = Mutex(State())
    private let capacity: Int

    /// `capacity` answers at most (about 0.5 KB each): the default keeps 4 MB.
    init(capacity: Int = 8192) {
        self.capacity = capacity
    }

    /// The cached answer (a product, or nil for "no such product"), and the generation to
    /// pass to `store` when there was none.
    func lookUp(_ key: Key) -> (hit: Product??, generation: UInt64) {
        state.withLock { state in
            guard let entry = state.entries[key] else { return (nil, state.generation) }
            return (.some(entry.product), state.generation)
        }
    }

    func store(_ product: Product?, for key: Key, readAt generation: UInt64) {
        state.withLock { state in
            guard state.generation == generation else { return }
            // Full: start over rather than track recency; the best sellers come back at once.
            if state.entries.count >= capacity { state.entries.removeAll(keepingCapacity: true) }
            state.entries[key] = Entry(product)
        }
    }

    /// After a write to the catalog commits.
    func invalidate() {
        state.withLock { state in
            state.generation &+= 1
            state.entries.removeAll()
        }
    }
}
