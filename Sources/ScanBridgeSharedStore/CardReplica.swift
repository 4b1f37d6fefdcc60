import Logging
import PostgresNIO
import ScanBridgeCore
import ScanBridgeModel
import Synchronization

/// Keeps this counter's copy of the shop's cards and customers current by following the
/// shop's change log (`scanbridge_changes`) from where the copy stands: at every start, after
/// every outage, and each time the log's triggers announce a change. Each change names a row,
/// which is read as it is now and put, or removed when gone; a batch and the position it
/// reaches are written here in one transaction, so a counter stopped anywhere resumes
/// without missing or replaying a change into an older state.
final class CardReplica: Sendable {
    let shared: SharedCards
    let replica: any CardReplicaStore
    let logger: Logger
    /// Changes read from the shop's store at a time.
    let page: Int
    private let state = Mutex(State())

    struct State {
        /// The last change applied here, once known.
        var applied: Int64?
        /// Why the copy cannot follow this shop's store; nil while it does.
        var refusal: String?
    }

    init(shared: SharedCards, replica: any CardReplicaStore, logger: Logger, page: Int = 1000) {
        self.shared = shared
        self.replica = replica
        self.logger = logger
        self.page = page
    }

    /// Why this counter's cards and customers do not follow the shop's store, if they don't.
    var refusal: String? { state.withLock { $0.refusal } }

    /// Runs until cancelled, starting again after every loss of the store, and every
    /// `session` in any case: a change feed whose server went silent (no TCP keepalive) is
    /// given up then, and the catch-up that follows repairs whatever it missed.
    func run(
        session: Duration = .seconds(300), backoff: (first: Duration, last: Duration) = (.milliseconds(250), .seconds(30))
    ) async {
        var wait = backoff.first
        var lastReason: String?
        while !Task.isCancelled {
            do {
                try await shared.client.withConnection("the change feed", within: session) { connection in
                    try await connection.listen(on: SharedSchema.changeChannel) { changes in
                        try await self.catchUp()
                        for try await _ in changes { try await self.catchUp() }
                    }
                }
                wait = backoff.first
                lastReason = nil
                continue
            } catch is StoreTimeout where refusal == nil {
                // The session's end, not a failure: start again at once.
                wait = backoff.first
                lastReason = nil
                continue
            } catch is Refused {
                // Until someone moves this counter's own data: looked at again soon, not
                // backed off, so the move takes effect at once.
                if refusal != lastReason {
                    logger.error("the shop's cards and customers are not copied here", metadata: ["reason": "\(refusal ?? "")"])
                    lastReason = refusal
                }
                try? await Task.sleep(for: .seconds(1))
                continue
            } catch {
                if Task.isCancelled { return }
                let reason = SharedStoreError.reason(error)
                if reason != lastReason {
                    logger.warning(
                        "the copy of the shop's cards and customers waits for its store", metadata: ["error": "\(reason)"])
                    lastReason = reason
                }
            }
            try? await Task.sleep(for: wait)
            wait = min(wait * 2, backoff.last)
        }
    }

    /// Applies every change after the copy's position, a page at a time.
    func catchUp() async throws {
        let shop = try await shared.run("the shop's identity") { [shared] in try await shared.shop(on: $0) }
        var position = try await startingPosition(shop: shop)
        while true {
            let changes = try await shared.run("the shop's changes") { [shared, page, position] in
                try await shared.changes(after: position.lastChange, limit: page, on: $0)
            }
            guard let last = changes.last else { break }
            position.lastChange = last.id
            try await replica.apply(batch(for: changes, through: position))
            state.withLock { $0.applied = position.lastChange }
            if changes.count < page { break }
        }
    }

    /// Where the copy stands in this shop's log. A counter that has cards or customers of its
    /// own, or a replica of another database, is never overwritten: it waits for them to be
    /// moved to the shop's store (`scanbridge store migrate`).
    private func startingPosition(shop: String) async throws -> ReplicaPosition {
        let refusal: String?
        switch try await replica.position() {
        case .some(let position) where position.shop == shop:
            state.withLock { $0 = State(applied: position.lastChange, refusal: nil) }
            return position
        case .some:
            refusal =
                "this counter's cards and customers are a copy of another shop database than the one at this address: "
                + "they are kept; move them with 'scanbridge store migrate' or remove this counter's database"
        case .none where try await replica.holdsAny():
            refusal =
                "this counter has cards and customers of its own: they are kept, and the shop's are not copied here "
                + "until they are moved there with 'scanbridge store migrate'"
        case .none:
            refusal = nil
        }
        state.withLock { $0 = State(applied: refusal == nil ? 0 : nil, refusal: refusal) }
        if let refusal { throw Refused(reason: refusal) }
        return ReplicaPosition(shop: shop, lastChange: 0)
    }

    /// The rows the changes name, as they are now.
    private func batch(for changes: [(id: Int64, table: String, key: String)], through position: ReplicaPosition)
        async throws -> ReplicaBatch
    {
        let wallets = Set(changes.filter { $0.table == "scanbridge_customers" }.map(\.key))
        let uids = Set(changes.filter { $0.table == "scanbridge_cards" }.map(\.key))
        let cards = try await shared.run("changed cards") { [shared] in try await shared.cards(uids: Array(uids), on: $0) }
        // A card's customer comes with it, for the copy's own reference from card to customer.
        let needed = wallets.union(cards.map(\.walletAddress))
        let customers = try await shared.run("changed customers") { [shared] in
            try await shared.customers(wallets: Array(needed), on: $0)
        }
        var batch = ReplicaBatch(through: position)
        batch.customers = customers
        batch.cards = cards
        batch.goneCustomers = Array(wallets.subtracting(customers.map(\.walletAddress)))
        batch.goneCards = Array(uids.subtracting(cards.map(\.uid.hex)))
        return batch
    }

    /// Moves the cards and customers held here into the shop's store (`SharedCards.move`);
    /// from then on they are the shop's replica, followed from the log's start.
    func moveHeld() async throws -> MovedToSharedStore {
        let shop = try await shared.run("the shop's identity") { [shared] in try await shared.shop(on: $0) }
        if let position = try await replica.position(), position.shop == shop {
            return MovedToSharedStore(customers: 0, cards: 0)
        }
        let moved = try await shared.run("move this counter's cards and customers", within: .seconds(600)) {
            [shared, replica] in try await shared.move(from: replica, on: $0)
        }
        try await replica.apply(ReplicaBatch(through: ReplicaPosition(shop: shop, lastChange: 0)))
        state.withLock { $0 = State(applied: 0, refusal: nil) }
        logger.notice(
            "moved this counter's cards and customers to the shop's store",
            metadata: ["customers": "\(moved.customers)", "cards": "\(moved.cards)"])
        return moved
    }

    /// Waits until the copy is known to follow the shop's store or not, or `limit` passes:
    /// a write right after the daemon starts is not refused for want of a first look.
    func waitUntilKnown(within limit: Duration = .seconds(5)) async {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline, state.withLock({ $0.applied == nil && $0.refusal == nil }) {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Why a write cannot go to the shop's store now, if it cannot: this counter's data is
    /// its own, or the copy has not reached the store yet.
    var writeRefusal: String? {
        state.withLock {
            $0.refusal ?? ($0.applied == nil ? "this counter's copy of the shop's cards has not reached it yet" : nil)
        }
    }

    /// Waits until the copy holds every change up to `change`, or `limit` passes: a counter
    /// that has just written to the shop's store then reads its own write.
    func waitForChange(_ change: Int64, within limit: Duration = .seconds(2)) async {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline, state.withLock({ ($0.applied ?? 0) < change }) {
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    struct Refused: Error, CustomStringConvertible {
        let reason: String
        var description: String { reason }
    }
}
