import ScanBridgeCore
import ScanBridgeModel
import Synchronization

/// The products scans found lately, by lookup key, so the best sellers of a shop are found
/// in memory; a miss reads SQLite. Every catalog write empties it.
///
/// A read that raced a write must not put the old row back: each read notes the
/// generation before it starts, and its answer is kept only if no write ended since.
final class ProductLookupCache: Sendable {
    /// A lookup key and the store of the daemon looking (nil: none), which decides what it finds.
    struct Key: Hashable, Sendable {
        let key: ProductKey
        let store: String?
    }

    /// Boxed: a `Product` is a few hundred bytes, and a dictionary keeps its values inline,
    /// empty buckets included.
    private final class Entry: Sendable {
        let product: Product
        init(_ product: Product) { self.product = product }
    }

    private struct State {
        var found: [Key: Entry] = [:]
        /// Codes with no product: a key each, nothing more (a till sees many unknown codes).
        var missing: Set<Key> = []
        var generation: UInt64 = 0
    }

    private let state = Mutex(State())
    private let capacity: Int

    /// `capacity` answers of each kind at most. A shop's products sold every day run to several
    /// thousand (a convenience store) or more, and a cache that cannot hold them all is emptied
    /// again and again, most lookups reading SQLite (docs/architecture.md, Design decisions).
    init(capacity: Int = 16_384) {
        self.capacity = capacity
    }

    /// The cached answer (a product, or nil for "no such product"), and the generation to
    /// pass to `store` when there was none.
    func lookUp(_ key: Key) -> (hit: Product??, generation: UInt64) {
        state.withLock { state in
            if let entry = state.found[key] { return (.some(entry.product), state.generation) }
            if state.missing.contains(key) { return (.some(nil), state.generation) }
            return (nil, state.generation)
        }
    }

    func store(_ product: Product?, for key: Key, readAt generation: UInt64) {
        state.withLock { state in
            guard state.generation == generation else { return }
            // Full: start over rather than track recency; the best sellers come back at once.
            if let product {
                if state.found.count >= capacity { state.found.removeAll(keepingCapacity: true) }
                state.found[key] = Entry(product)
            } else {
                if state.missing.count >= capacity { state.missing.removeAll(keepingCapacity: true) }
                state.missing.insert(key)
            }
        }
    }

    /// After a write to the catalog commits.
    func invalidate() {
        state.withLock { state in
            state.generation &+= 1
            state.found.removeAll()
            state.missing.removeAll()
        }
    }
}
