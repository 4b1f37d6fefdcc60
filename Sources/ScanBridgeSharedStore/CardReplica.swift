import Logging
import PostgresNIO
import ScanBridgeCodes
import ScanBridgeCore
import ScanBridgeModel

/// Keeps this counter's copy of the shop's cards and customers current: each time the store
/// is reached, it listens for changes, copies everything once, then applies each change as
/// it is told of it (the tables' triggers name the row; the row is read and put, or removed).
/// Listening starts before the full copy, so no change made during it is missed.
struct CardReplica: Sendable {
    let shared: SharedCards
    let replica: any CardReplicaStore
    let logger: Logger
    /// Rows read from the shop's store at a time.
    var page = 1000

    static let channel = "scanbridge_changes"

    /// Runs until cancelled, starting again after every loss of the store, and every
    /// `session` in any case: a change feed whose server went silent (no TCP keepalive) is
    /// given up then, and the full copy that follows repairs whatever it missed.
    func run(
        session: Duration = .seconds(300), backoff: (first: Duration, last: Duration) = (.milliseconds(250), .seconds(30))
    ) async {
        var wait = backoff.first
        var lastReason: String?
        while !Task.isCancelled {
            do {
                try await shared.client.withConnection("the change feed", within: session) { connection in
                    try await connection.listen(on: Self.channel) { changes in
                        try await synchronise()
                        for try await change in changes { try await apply(change.payload) }
                    }
                }
            } catch is StoreTimeout {
                // The session's end, not a failure: start again at once.
                wait = backoff.first
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

    /// Copies every customer and card, then removes what the shop no longer has.
    func synchronise() async throws {
        var wallets = Set<String>()
        var after = ""
        while true {
            let customers = try await shared.run("a page of customers") { [after, page, shared] in
                try await shared.customers(after: after, limit: page, on: $0)
            }
            try await replica.put(customers: customers)
            wallets.formUnion(customers.map(\.walletAddress))
            guard customers.count == page, let last = customers.last else { break }
            after = last.walletAddress
        }
        var uids = Set<String>()
        after = ""
        while true {
            let cards = try await shared.run("a page of cards") { [after, page, shared] in
                try await shared.cards(after: after, limit: page, on: $0)
            }
            try await replica.put(cards: cards)
            uids.formUnion(cards.map(\.uid.hex))
            guard cards.count == page, let last = cards.last else { break }
            after = last.uid.hex
        }
        let held = try await replica.keys()
        let goneCards = held.cardUIDs.subtracting(uids)
        let goneCustomers = held.customerWallets.subtracting(wallets)
        // A shop's store with nothing in it, before a counter that has its own: that counter
        // was set up before the shop's store; its data is moved there, never wiped.
        if wallets.isEmpty && !goneCustomers.isEmpty {
            logger.error(
                "the shop's store has no customers, and this counter has some: they are kept here, unseen by the other counters",
                metadata: ["customers": "\(goneCustomers.count)"])
            return
        }
        try await replica.remove(cardUIDs: goneCards.compactMap { try? NFCUID(parsing: $0) })
        try await replica.remove(customerWallets: Array(goneCustomers))
        logger.debug(
            "copied the shop's cards and customers", metadata: ["customers": "\(wallets.count)", "cards": "\(uids.count)"])
    }

    /// `cards UID` or `customers WALLET`: the row is read again and put, or removed.
    func apply(_ payload: String) async throws {
        let parts = payload.split(separator: " ", maxSplits: 1).map(String.init)
        guard parts.count == 2 else { return }
        switch parts[0] {
        case "customers":
            let wallet = parts[1]
            if let customer = try await shared.run(
                "a customer", { [shared] in try await shared.customer(walletAddress: wallet, on: $0) })
            {
                try await replica.put(customers: [customer])
            } else {
                try await replica.remove(customerWallets: [parts[1]])
            }
        case "cards":
            let uid = parts[1]
            if let card = try await shared.run("a card", { [shared] in try await shared.card(uid: uid, on: $0) }) {
                // Its customer first: the card names it.
                let wallet = card.walletAddress
                if let customer = try await shared.run(
                    "a customer", { [shared] in try await shared.customer(walletAddress: wallet, on: $0) })
                {
                    try await replica.put(customers: [customer])
                }
                try await replica.put(cards: [card])
            } else if let uid = try? NFCUID(parsing: parts[1]) {
                try await replica.remove(cardUIDs: [uid])
            }
        default:
            return
        }
    }
}
