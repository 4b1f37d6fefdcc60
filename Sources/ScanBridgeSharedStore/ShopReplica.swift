import Logging
import PostgresNIO
import ScanBridgeCodes
import ScanBridgeCore
import ScanBridgeModel
import Synchronization

/// Keeps this counter's copy of the shop's catalog, cards, customers and repair orders current
/// by following the shop's change log (`scanbridge_changes`) from where the copy stands: at every start, after
/// every outage, and each time the log's triggers announce a change. Each change names a row,
/// which is read as it is now and put, or removed when gone; a batch and the position it
/// reaches are written here in one transaction, so a counter stopped anywhere resumes
/// without missing or replaying a change into an older state.
final class ShopReplica: Sendable {
    let shared: SharedCards
    let products: SharedProducts
    let orders: SharedOrders
    let replica: any ShopReplicaStore
    let logger: Logger
    /// Changes read from the shop's store at a time.
    let page: Int
    /// The most bytes the rows of one page may take at their bounds (`ShopRowBounds`).
    let pageBytes: Int
    let state = Mutex(State())

    struct State {
        /// The last change applied here, once known.
        var applied: Int64?
        /// Why the copy cannot follow this shop's store; nil while it does.
        var refusal: String?
        /// Why the copy is stuck at a change it cannot apply; nil while it is not.
        var stalled: String?
        /// The rows of the shop's store left out of the copy, until a later change to each
        /// is applied: the first `RefusedRows.shown`, and how many in all.
        var refused = RefusedRows()
    }

    init(shared: SharedCards, replica: any ShopReplicaStore, logger: Logger, page: Int = 1000, pageBytes: Int = 16 << 20) {
        self.shared = shared
        self.products = SharedProducts(logger: logger)
        self.orders = SharedOrders(logger: logger)
        self.replica = replica
        self.logger = logger
        self.page = page
        self.pageBytes = pageBytes
    }

    /// Why this counter's data does not follow the shop's store, if it does not.
    var refusal: String? { state.withLock { $0.refusal } }

    /// What an operator should know about the copy: its refusal, the change it is stuck at,
    /// or the shop's rows it leaves out.
    var problem: String? { state.withLock { $0.refusal ?? $0.stalled ?? $0.refused.summary } }

    /// How many of the shop's rows the copy leaves out now.
    var refusedRows: Int { state.withLock { $0.refused.count } }

    /// Runs until cancelled, starting again after every loss of the store, and every
    /// `session` in any case: a change feed whose server went silent (no TCP keepalive) is
    /// given up then, and the catch-up that follows repairs whatever it missed.
    func run(
        session: Duration = .seconds(300), backoff: (first: Duration, last: Duration) = (.milliseconds(250), .seconds(30)),
        liveness: Duration = .seconds(2), lost: @Sendable () -> Void = {}
    ) async {
        var wait = backoff.first
        var lastReason: String?
        while !Task.isCancelled {
            let started = ContinuousClock.now
            let listening = Flag()
            do {
                try await snapshotIfDue()
                try await shared.pool.withConnection("the change feed", within: session) { connection in
                    try await connection.listen(on: SharedSchema.changeChannel) { changes in
                        listening.set()
                        let asking = Task { [logger = self.logger] in
                            await Self.keepAsking(connection, every: liveness, logger: logger)
                        }
                        defer { asking.cancel() }
                        try await self.catchUp()
                        for try await _ in changes { try await self.catchUp() }
                    }
                }
                wait = backoff.first
                lastReason = nil
                continue
            } catch  where listening.isSet && refusal == nil && ContinuousClock.now - started >= session {
                // The session's end (however closing the connection surfaced), not a
                // failure: start again at once.
                wait = backoff.first
                lastReason = nil
                continue
            } catch is Compacted {
                logger.notice("the shop's change log was compacted past this counter's copy; it takes a snapshot")
                continue
            } catch is Refused {
                // Until someone moves this counter's own data: looked at again soon, not
                // backed off, so the move takes effect at once.
                if refusal != lastReason {
                    logger.error("the shop's data is not copied here", metadata: ["reason": "\(refusal ?? "")"])
                    lastReason = refusal
                }
                try? await Task.sleep(for: .seconds(1))
                continue
            } catch let failed as ApplyFailed where !Task.isCancelled {
                // A change this counter's database refuses: said where an operator looks, and
                // tried again, since the shop's next change to that row may mend it.
                state.withLock { $0.stalled = failed.description }
                if failed.description != lastReason {
                    logger.error("the copy of the shop's data is stuck", metadata: ["error": "\(failed)"])
                    lastReason = failed.description
                }
            } catch {
                if Task.isCancelled { return }
                // The feed's connection was live: the server closed it (a stop, a restart, a
                // failover), and everyone is told now rather than at their next question.
                if listening.isSet { lost() }
                let reason = SharedStoreError.reason(error)
                if reason != lastReason {
                    logger.warning(
                        "the copy of the shop's data waits for its store", metadata: ["error": "\(reason)"])
                    lastReason = reason
                }
            }
            try? await Task.sleep(for: wait)
            wait = min(wait * 2, backoff.last)
        }
    }

    /// Asks the server on the change feed's own connection whether it is there, every
    /// `interval`, and closes the connection when it does not answer within as long: a server
    /// gone silent behind a live route (a pulled cable, a power cut) ends the feed, and the
    /// store is offline, within two intervals. Ends when cancelled or the connection fails.
    static func keepAsking(_ connection: PostgresConnection, every interval: Duration, logger: Logger) async {
        while !Task.isCancelled {
            guard (try? await Task.sleep(for: interval)) != nil else { return }
            let answered = Flag()
            let deadline = Task {
                guard (try? await Task.sleep(for: interval)) != nil, !answered.isSet else { return }
                logger.warning("the shop's store did not answer on the change feed in time; it is taken for gone")
                try? await connection.close()
            }
            defer { deadline.cancel() }
            do {
                try await connection.query("SELECT 1", logger: logger)
                answered.set()
            } catch {
                return
            }
        }
    }

    /// Copies a snapshot of the shop's store when the copy is empty or older than the log's
    /// compaction: before the change feed's session, which a large shop's snapshot would
    /// outlast. The feed's first catch-up then follows the log from where it ends.
    func snapshotIfDue() async throws {
        let position = try await startingPosition()
        guard position.stamp == Self.snapshotDue else { return }
        state.withLock { $0.refusal = nil }
        _ = try await snapshot(shop: position.shop)
    }

    /// Applies every change after the copy's position, a page at a time. A copy that needs a
    /// snapshot (the log compacted past it meanwhile) ends the feed's session, and the next
    /// takes it first (`snapshotIfDue`).
    func catchUp() async throws {
        var position = try await startingPosition()
        if position.stamp == Self.snapshotDue { throw Compacted() }
        while let (batch, refused, atEnd) = try await page(after: position) {
            do {
                try await replica.apply(batch)
            } catch {
                throw ApplyFailed(after: position.lastChange, reason: "\(error)")
            }
            position = batch.through
            state.withLock { $0.applied = position.lastChange }
            noteRefused(refused, applied: batch)
            if atEnd { break }
        }
        state.withLock { $0.stalled = nil }
    }

    /// Logs the rows `batch`, just applied, left out, and keeps them for `problem`.
    func noteRefused(_ refused: [RefusedRow], applied batch: ReplicaBatch) {
        for row in refused {
            logger.warning(
                "a row of the shop's store is left out of this counter's copy",
                metadata: ["table": "\(row.table)", "key": "\(row.key)", "reason": "\(row.reason)"])
        }
        state.withLock { $0.refused.update(applied: batch, refused: refused) }
    }

    /// The next page of changes and the rows they name as they are now, read in one snapshot
    /// (a card and its customer as they were together), with the rows refused; nil when
    /// there is none; and whether it reaches the log's end. A page is cut short where the
    /// rows its changes name could, at their bounds, take more than `pageBytes`.
    private func page(after position: ReplicaPosition) async throws -> (ReplicaBatch, [RefusedRow], atEnd: Bool)? {
        try await shared.run("the shop's changes", within: .seconds(60)) {
            [shared, products, orders, page, pageBytes, logger] connection in
            try await connection.withTransaction(logger: logger) { connection in
                try await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY", logger: logger)
                let read = try await shared.changes(after: position.lastChange, limit: page, on: connection)
                let changes = Self.prefix(of: read, within: pageBytes)
                guard let last = changes.last else { return nil }
                if try await shared.shop(on: connection).compactedThrough > position.lastChange { throw Compacted() }
                let unnamed = changes.compactMap { change in
                    change.key == nil
                        ? RefusedRow(
                            table: change.table, key: "(change \(change.id))",
                            reason: "it names a key longer than \(SharedCards.maxKeyBytes) bytes")
                        : nil
                }
                var keys: [ShopTable: Set<String>] = [:]
                for change in changes {
                    if let table = ShopTable(logged: change.table), let key = change.key { keys[table, default: []].insert(key) }
                }
                let (batch, refusedRows) = try await Self.rows(
                    keys, through: ReplicaPosition(shop: position.shop, lastChange: last.id, stamp: last.stamp),
                    shared: shared, products: products, orders: orders, on: connection)
                let refused = refusedRows + unnamed
                return (batch, refused, changes.count == read.count && read.count < page)
            }
        }
    }

    /// The rows of the shop's store these keys name, as they are in `connection`'s snapshot,
    /// for a batch that ends at `through`: those found put, those gone taken away, those
    /// refused left as this counter holds them. A card's customer comes with it.
    static func rows(
        _ keys: [ShopTable: Set<String>], through: ReplicaPosition, shared: SharedCards, products: SharedProducts,
        orders: SharedOrders, on connection: PostgresConnection
    ) async throws -> (ReplicaBatch, [RefusedRow]) {
        let (wallets, uids) = (keys[.customers] ?? [], keys[.cards] ?? [])
        let (ids, orderIds) = (keys[.products] ?? [], keys[.orders] ?? [])
        let cards = uids.isEmpty ? ShopRows() : try await shared.cards(uids: Array(uids), on: connection)
        // A card's customer comes with it, for the copy's own reference from card to customer.
        let needed = wallets.union(cards.rows.map(\.walletAddress))
        let customers = needed.isEmpty ? ShopRows() : try await shared.customers(wallets: Array(needed), on: connection)
        let found = ids.isEmpty ? ShopRows() : try await products.products(ids: Array(ids), on: connection)
        let repairs = orderIds.isEmpty ? ShopRows() : try await orders.orders(ids: Array(orderIds), on: connection)
        // A card whose customer is refused is too: the copy keeps no card without its customer.
        let orphaned = Set(customers.refused.map(\.key))
        let cardsRefused = cards.rows.filter { orphaned.contains($0.walletAddress) }.map {
            RefusedRow(table: ShopRowBounds.cards.table, key: $0.uid.hex, reason: "its customer is left out")
        }
        let refused = cards.refused + cardsRefused + customers.refused + found.refused + repairs.refused
        // A row refused is left as this counter holds it: neither put nor taken for gone.
        func held(_ bounds: ShopRowBounds) -> Set<String> {
            Set(refused.filter { $0.table == bounds.table }.map(\.key))
        }
        var batch = ReplicaBatch(through: through)
        batch.cards = cards.rows.filter { !orphaned.contains($0.walletAddress) }
        batch.customers = customers.rows
        batch.products = found.rows
        batch.orders = repairs.rows
        batch.goneCustomers = Array(
            wallets.subtracting(batch.customers.map(\.walletAddress)).subtracting(held(.customers)))
        batch.goneCards = Array(uids.subtracting(cards.rows.map(\.uid.hex)).subtracting(held(.cards)))
        batch.goneProducts = Array(ids.subtracting(batch.products.map(\.product.id)).subtracting(held(.products)))
        batch.goneOrders = Array(orderIds.subtracting(batch.orders.map(\.id)).subtracting(held(.orders)))
        return (batch, refused)
    }

    /// The changes of a page whose rows, at their bounds, take at most `bytes` (never fewer
    /// than one change): a page of repair orders with hundreds of devices each holds fewer.
    /// A row named twice is read once.
    static func prefix(of changes: [ShopChange], within bytes: Int) -> ArraySlice<ShopChange> {
        var total = 0
        var named: Set<String> = []
        for (index, change) in changes.enumerated() {
            let table = ShopTable(logged: change.table)
            guard named.insert("\(table?.rawValue ?? change.table) \(change.key ?? "")").inserted else { continue }
            // A change no followed table has names nothing to read but itself.
            total += table?.maxRowBytes ?? 256
            if total > bytes, index > 0 { return changes[..<index] }
        }
        return changes[...]
    }

    /// Where the copy stands in this shop's log. A counter that has data of its own, a
    /// replica of another database, or one ahead of this database's log (restored from a
    /// backup under the same identity), is never overwritten: it waits for its data to be
    /// moved to the shop's store (`scanbridge store migrate`).
    private func startingPosition() async throws -> ReplicaPosition {
        let refusal: String
        let (shop, compacted) = try await shared.run("the shop's identity") { [shared] in try await shared.shop(on: $0) }
        switch try await replica.position() {
        case .some(let position) where position.shop == shop && position.stamp == Self.snapshotDue:
            return position
        case .some(let position) where position.shop == shop && compacted > 0 && position.lastChange <= compacted:
            // The changes after it, or its own, are no longer logged.
            return Self.snapshotDue(shop)
        case .some(let position) where position.shop == shop:
            let stamp =
                position.lastChange == 0
                ? 0
                : try await shared.run("the shop's last change here") { [shared] in
                    try await shared.stamp(ofChange: position.lastChange, on: $0)
                }
            if stamp == position.stamp {
                state.withLock {
                    $0.applied = position.lastChange
                    $0.refusal = nil
                }
                return position
            }
            // A compaction between the two reads took the change away: not a rewound log.
            if try await shared.run("the shop's compaction", { [shared] in try await shared.shop(on: $0) })
                .compactedThrough >= position.lastChange
            {
                return Self.snapshotDue(shop)
            }
            refusal =
                "the shop's store no longer has the changes this counter's copy holds (restored from a backup?): "
                + "this counter's data is kept, and the shop's is not copied here until it is moved there with "
                + "'scanbridge store migrate'"
        case .some:
            refusal =
                "this counter's data is a copy of another shop database than the one at this address: "
                + "it is kept, and the shop's is not copied here until it is moved there with 'scanbridge store migrate'"
        case .none where try await replica.holdsAny():
            refusal =
                "this counter has products, cards, customers or repair orders of its own: they are kept, and the shop's are not "
                + "copied here until they are moved there with 'scanbridge store migrate'"
        case .none:
            // An empty copy takes the shop's rows as they are, not its whole history.
            state.withLock { $0.refusal = nil }
            return Self.snapshotDue(shop)
        }
        state.withLock {
            $0.applied = nil
            $0.refusal = refusal
        }
        throw Refused(reason: refusal)
    }

    /// Moves the products, cards, customers and repair orders held here into the shop's store (`SharedCards.move`);
    /// from then on they are the shop's replica, followed from the log's start.
    func moveHeld() async throws -> MovedToSharedStore {
        let shop = try await shared.run("the shop's identity") { [shared] in try await shared.shop(on: $0) }.id
        // Only while refused: a counter that follows has nothing of its own to move.
        await waitUntilKnown()
        if let notYet = writeRefusal, refusal == nil {
            throw ScanBridgeError.unavailable("cannot move this counter's data yet: \(notYet); try again in a moment")
        }
        guard refusal != nil else { return MovedToSharedStore() }
        let moved = try await shared.run("move this counter's data", within: .seconds(1800)) {
            [shared, replica] in try await shared.move(from: replica, on: $0)
        }
        try await replica.apply(ReplicaBatch(through: ReplicaPosition(shop: shop, lastChange: 0, stamp: 0)))
        state.withLock {
            $0.applied = 0
            $0.refusal = nil
        }
        logger.notice(
            "moved this counter's data to the shop's store",
            metadata: [
                "products": "\(moved.products)", "customers": "\(moved.customers)", "cards": "\(moved.cards)",
                "orders": "\(moved.orders)",
            ])
        return moved
    }

    /// Waits until the copy is known to follow the shop's store or not, or `limit` passes:
    /// a write right after the daemon starts is not refused for want of a first look.
    func waitUntilKnown(within limit: Duration = .seconds(5)) async {
        await wait(within: limit) { $0.applied != nil || $0.refusal != nil }
    }

    /// Why a write cannot go to the shop's store now, if it cannot: this counter's data is
    /// its own, or the copy has not reached the store yet.
    var writeRefusal: String? {
        state.withLock {
            $0.refusal ?? ($0.applied == nil ? "this counter has not reached it yet since it started" : nil)
        }
    }

    /// Waits until the copy holds every change up to `change`, or `limit` passes: a counter
    /// that has just written to the shop's store then reads its own write.
    func waitForChange(_ change: Int64, within limit: Duration = .seconds(2)) async {
        await wait(within: limit) { ($0.applied ?? 0) >= change }
    }

    /// Polls the state until `done` holds, `limit` passes or the task is cancelled. Only
    /// writes wait here, and rarely: a poll is simpler than waking waiters from `catchUp`.
    private func wait(within limit: Duration, until done: (State) -> Bool) async {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline, !state.withLock({ done($0) }) {
            do { try await Task.sleep(for: .milliseconds(5)) } catch { return }
        }
    }

    struct ApplyFailed: Error, CustomStringConvertible {
        let after: Int64
        let reason: String
        var description: String {
            "this counter's database refuses the shop's changes after change \(after) (\(reason)); "
                + "it tries again, and the shop's next change to that row may mend it"
        }
    }

    struct Refused: Error, CustomStringConvertible {
        let reason: String
        var description: String { reason }
    }
}
