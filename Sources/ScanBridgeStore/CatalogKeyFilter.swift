import GRDB
import ScanBridgeCore
import ScanBridgeModel
import Synchronization

/// Which lookup keys the catalog may hold, in memory: a Bloom filter over every product's
/// GTIN, SKU and barcode. A code it has never seen is "no such product" without a read.
///
/// Its keys carry no store: one filter answers a daemon with a store and one without, and a
/// product is in it whichever daemons find it. A code only another store has costs a read
/// (then a cached miss) at a daemon with a store; the codes that matter here, those of no
/// product at all, are answered from memory in both.
///
/// Why: unknown codes are common at a till (coupons, loyalty cards, parcel labels), and each
/// one would cost a SQLite read (CPU and two file-lock system calls, or a disk read on a
/// large catalog) to learn nothing (docs/architecture.md, Design decisions).
///
/// It never answers "absent" for a stored key. The writer keeps it so: every upsert adds its
/// keys inside its write transaction, before the commit, and a (re)build scans the catalog in
/// chunks on the same serial writer queue, so no write slips between the scan and the filter.
/// Until the first build ends, every key is "maybe" (a read). Deleted products
/// leave their keys, only costing reads, until the next rebuild: that comes when half the
/// bits are set. It assumes this process is the catalog's only writer, as the daemon is.
final class CatalogKeyFilter: Sendable {
    private struct State {
        /// Answers lookups once built.
        var live: BloomFilter?
        /// Being built by the chunked scan; upserts add to it as well.
        var next: BloomFilter?
        /// A build is queued or running.
        var building = false
    }

    private let state = Mutex(State())
    private let database: StoreDatabase
    /// Rows per writer job of a build: a few milliseconds each, so journal commits interleave.
    private let chunkRows: Int

    init(database: StoreDatabase, chunkRows: Int) {
        self.database = database
        self.chunkRows = chunkRows
    }

    /// The size of the filter answering lookups, in bits; nil until the first build ends.
    var builtBits: Int? {
        state.withLock { state in state.building ? nil : state.live?.bitCount }
    }

    /// False when no product, of any store or none, has that key; true when one may.
    func mightContain(_ key: ProductKey) -> Bool {
        let hash = Self.hash(key)
        return state.withLock { $0.live?.mightContain(hash) ?? true }
    }

    /// Adds the keys of products about to be stored, with their GTIN-14s. Call inside the
    /// write transaction that stores them.
    func add(_ products: [Product], gtins: [String?]) {
        var hashes: [KeyHash] = []
        hashes.reserveCapacity(products.count * 3)
        for (product, gtin) in zip(products, gtins) {
            if let gtin { hashes.append(KeyHash(tag: Self.gtinTag, value: gtin)) }
            for label in [product.sku, product.barcode] {
                if let label { hashes.append(KeyHash(tag: Self.labelTag, value: label)) }
            }
        }
        let rebuild = state.withLock { state in
            for hash in hashes {
                state.live?.insert(hash)
                state.next?.insert(hash)
            }
            return !state.building && (state.live?.fill ?? 1) > 0.5
        }
        if rebuild { build() }
    }

    /// Builds a filter from the stored catalog in the background, then answers from it.
    func build() {
        state.withLock { $0.building = true }
        // The keys are counted on a reader: a count reads the whole table, and on the writer
        // queue it would hold up every write behind it, the daemon's start among them. A write
        // between the count and the scan only fills the filter a little more.
        database.pool.asyncRead { access in
            let keys =
                (try? access.get()).flatMap { db in
                    try? Int.fetchOne(db, sql: "SELECT COUNT(gtin) + COUNT(sku) + COUNT(barcode) FROM product")
                } ?? 0
            self.database.pool.asyncWriteWithoutTransaction { db in
                // On the writer queue: every write before this has committed, every later one adds to `next`.
                // Room to double before the next rebuild.
                self.state.withLock { $0.next = BloomFilter(capacity: max(16_384, keys * 2)) }
                self.scan(db, after: 0)
            }
        }
    }

    /// Adds one chunk of stored keys after `rowid`, then queues the next chunk or ends the build.
    private func scan(_ db: Database, after rowid: Int64) {
        var hashes: [KeyHash] = []
        var last: Int64?
        do {
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT rowid, gtin, sku, barcode FROM product WHERE rowid > ? ORDER BY rowid LIMIT ?
                    """, arguments: [rowid, chunkRows])
            while let row = try rows.next() {
                last = row[0]
                for (tag, column) in [(Self.gtinTag, 1), (Self.labelTag, 2), (Self.labelTag, 3)] {
                    if let value = row[column] as String? { hashes.append(KeyHash(tag: tag, value: value)) }
                }
            }
        } catch {
            // An unreadable catalog: keep the filter there was (or "maybe", reads), and try
            // again on the next write.
            state.withLock { state in
                state.next = nil
                state.building = false
            }
            return
        }
        state.withLock { state in
            for hash in hashes { state.next?.insert(hash) }
            if last == nil {
                state.live = state.next
                state.next = nil
                state.building = false
            }
        }
        guard let last else { return }
        database.pool.asyncWriteWithoutTransaction { db in self.scan(db, after: last) }
    }

    private static let gtinTag: UInt8 = 0x47  // "G"
    private static let labelTag: UInt8 = 0x4C  // "L"

    private static func hash(_ key: ProductKey) -> KeyHash {
        switch key {
        case .gtin(let gtin): KeyHash(tag: gtinTag, value: gtin)
        case .skuOrBarcode(let text): KeyHash(tag: labelTag, value: text)
        }
    }
}
