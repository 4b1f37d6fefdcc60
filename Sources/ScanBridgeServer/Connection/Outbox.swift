import DequeModule
import NIOCore
package import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeRPC
import Synchronization

/// A connection's outgoing messages, in order: responses, notifications, daemon requests.
///
/// Bounded twice, so a client that stops reading costs a bounded amount and never slows
/// anyone else: each subscription may have at most `subscriptionCapacity` messages waiting,
/// and the whole queue at most `byteCapacity` bytes. An event or notice past either bound
/// overflows its subscription, which is closed at once. Responses are never dropped: the
/// connection stops reading requests while `acceptsRequests` is false.
///
/// The outbox does no I/O: it calls `onReady` when messages arrive, and the connection's
/// flusher `take`s them while the socket is writable. What the socket cannot take stays
/// here, counted, so the bounds hold however slow the client is.
package final class Outbox: SubscriptionSink, Sendable {
    enum Item {
        case message([UInt8])
        /// A `scan` notification: written as prefix, the event's JSON, suffix, without copying the event.
        case scan(JournaledEvent, prefix: [UInt8])

        /// The bytes of its line with the newline.
        var lineBytes: Int {
            switch self {
            case .message(let bytes): bytes.count + 1
            case .scan(let event, let prefix): prefix.count + event.json.count + Outbox.scanSuffix.count + 1
            }
        }
    }

    /// One subscription's place here: its notification prefix, built once, and how many of
    /// its messages wait. Found by the subscription's identity, and reached from its queued
    /// messages directly, so no string is hashed for each event and subscriber on its way in
    /// or out (docs/architecture.md, Design decisions).
    private final class Slot {
        /// Held, so the identity the slot is found by cannot pass to another subscription.
        let subscription: Subscription
        let prefix: [UInt8]
        var queued = 0

        init(_ subscription: Subscription) {
            self.subscription = subscription
            self.prefix = Outbox.scanPrefix(subscription: subscription.id)
        }
    }

    private struct Queued {
        let item: Item
        let bytes: Int
        let isResponse: Bool
        /// The subscription whose count the item is in (its scans and notices).
        let slot: Slot?
    }

    private struct State {
        var queue: Deque<Queued> = []
        var slots: [ObjectIdentifier: Slot] = [:]
        var responses = 0
        /// The bytes of every queued line.
        var bytes = 0
        /// `onReady` was called and the queue has not been emptied since.
        var signalled = false
        var roomWaiters: [CheckedContinuation<Void, any Error>] = []
        var drainWaiters: [CheckedContinuation<Void, Never>] = []
        var requestRoomWaiters: [@Sendable () -> Void] = []
        var finished = false
        /// The daemon stops: requests no longer wait for the client to read (see `stopWaitingForRoom`).
        var stopping = false
        /// The daemon's buffers are full and this outbox is to give its events back (`shed`).
        var shedding = false
    }

    struct Closed: Error {}

    let subscriptionCapacity: Int
    let responseCapacity: Int
    let byteCapacity: Int
    /// Every outbox's bytes together, when the daemon bounds them.
    private let budget: BufferBudget?
    private let onReady: @Sendable () -> Void
    private let onOverflow = Mutex<(@Sendable (Subscription) -> Void)?>(nil)
    private let state = Mutex(State())

    package init(
        subscriptionCapacity: Int, responseCapacity: Int, byteCapacity: Int = 8 << 20, budget: BufferBudget? = nil,
        onReady: @escaping @Sendable () -> Void
    ) {
        self.subscriptionCapacity = subscriptionCapacity
        self.responseCapacity = responseCapacity
        self.byteCapacity = byteCapacity
        self.budget = budget
        self.onReady = onReady
    }

    /// Called with each subscription that overflows, after its `events.overflow` is queued:
    /// the connection forgets it there and then, not when the client next reads.
    func whenOverflowed(_ handle: @escaping @Sendable (Subscription) -> Void) {
        onOverflow.withLock { $0 = handle }
    }

    // MARK: Producers

    /// A response or other message that must not be dropped.
    package func enqueue(_ message: [UInt8]) {
        push(.message(message), isResponse: true)
    }

    package func offer(_ event: JournaledEvent, for subscription: Subscription) -> Bool {
        offer(for: subscription) { .scan(event, prefix: $0.prefix) }
    }

    package func offerReplayed(_ event: JournaledEvent, for subscription: Subscription) -> Bool {
        offer(for: subscription, replayed: true) { .scan(event, prefix: $0.prefix) }
    }

    package func notify(_ notice: SubscriptionNotice, for subscription: Subscription) -> Bool {
        offer(for: subscription) { _ in .message(Self.noticeNotification(notice, subscription: subscription.id)) }
    }

    /// A subscription's message framed by its transport (a Server-Sent Event), under the same
    /// bounds as its events.
    package func offer(framed message: [UInt8], for subscription: Subscription) -> Bool {
        offer(for: subscription) { _ in .message(message) }
    }

    /// A replayed event, framed by its transport, under a replay's bounds.
    package func offerReplayed(framed message: [UInt8], for subscription: Subscription) -> Bool {
        offer(for: subscription, replayed: true) { _ in .message(message) }
    }

    /// The most a replay keeps waiting here. A replay reads the journal only as fast as its
    /// client takes what is queued, so a client that never reads holds this much, not the
    /// outbox's whole bound, and makes no other outbox shed (docs/architecture.md, Design
    /// decisions).
    static let replayWindow = 256 << 10

    /// Queues a subscription's item when both bounds leave room for it (a lone item always fits,
    /// so one larger than the byte bound still goes out).
    /// The daemon's bound on every outbox together is the third (`BufferBudget`). A replayed
    /// item waits instead while `replayWindow` bytes wait or the budget is spent.
    private func offer(for subscription: Subscription, replayed: Bool = false, _ item: (Slot) -> Item) -> Bool {
        let (accepted, signal, larger) = state.withLock { state -> (Bool, Bool, Outbox?) in
            guard !state.finished else { return (true, false, nil) }
            if replayed && !hasReplayRoom(for: subscription, in: state) { return (false, false, nil) }
            let slot = Self.slot(of: subscription, in: &state)
            guard slot.queued < subscriptionCapacity else { return (false, false, nil) }
            let item = item(slot)
            let bytes = item.lineBytes
            guard state.bytes + bytes <= byteCapacity || state.queue.isEmpty else { return (false, false, nil) }
            var larger: Outbox?
            switch replayed ? .fits : budget?.admit(bytes, to: self) ?? .fits {
            case .fits: break
            case .refused: return (false, false, nil)
            case .fitsOnceShed(let outbox): larger = outbox
            }
            slot.queued += 1
            account(bytes, in: &state)
            state.queue.append(Queued(item: item, bytes: bytes, isResponse: false, slot: slot))
            return (true, Self.signal(&state), larger)
        }
        if signal { onReady() }
        larger?.shedSoon()
        return accepted
    }

    /// Every outbox's bytes changed by `change`: here, and in the daemon's budget.
    private func account(_ change: Int, in state: inout State) {
        state.bytes += change
        budget?.change(self, by: change)
    }

    /// Sheds this outbox's events, once, off the caller's locks: the caller may hold a
    /// subscription's, and shedding takes others.
    private func shedSoon() {
        let first = state.withLock { state in
            defer { state.shedding = true }
            return !state.shedding
        }
        if first { Task { self.shed() } }
    }

    /// Drops every queued event and notice of this outbox's subscriptions (answers stay) to
    /// give memory back when the daemon's buffers are full; each of those subscriptions
    /// overflows, having missed what was dropped, and is closed. Its client resumes with
    /// `since` and misses nothing.
    func shed() {
        let (overflowing, waiters) = state.withLock { state in
            state.shedding = false
            var dropped: [ObjectIdentifier: (subscription: Subscription, count: Int)] = [:]
            var freed = 0
            state.queue.removeAll { queued in
                guard let slot = queued.slot else { return false }
                freed += queued.bytes
                slot.queued -= 1
                dropped[ObjectIdentifier(slot), default: (slot.subscription, 0)].count += 1
                return true
            }
            account(-freed, in: &state)
            defer { state.roomWaiters = [] }
            return (Array(dropped.values), state.roomWaiters)
        }
        for waiter in waiters { waiter.resume() }
        for (subscription, count) in overflowing { subscription.overflow(dropped: count) }
    }

    package func waitForRoom(for subscription: Subscription) async throws {
        try await waitForRoom { state in hasReplayRoom(for: subscription, in: state) }
    }

    /// A replay may queue another item: nothing waits, or less than its window does and the
    /// daemon's budget is not spent. The same test before an offer and before a wait, so a
    /// refused replay never finds room at once and spins.
    private func hasReplayRoom(for subscription: Subscription, in state: State) -> Bool {
        guard !state.queue.isEmpty else { return true }
        return (state.slots[ObjectIdentifier(subscription)]?.queued ?? 0) < subscriptionCapacity
            && state.bytes < min(byteCapacity, Self.replayWindow) && budget?.isSpent != true
    }

    package func overflowed(_ subscription: Subscription, dropped: Int) {
        push(.message(Self.overflowNotification(subscription: subscription.id, dropped: dropped)), isResponse: false)
        onOverflow.withLock { $0 }?(subscription)
    }

    /// Forgets a subscription that ended; with `droppingQueued`, its messages still queued
    /// go too (an unsubscribe: none may follow the answer), and a replay waiting for room
    /// wakes to find it closed.
    package func forget(_ subscription: Subscription, droppingQueued: Bool) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            guard let slot = state.slots.removeValue(forKey: ObjectIdentifier(subscription)) else { return [] }
            if droppingQueued && slot.queued > 0 {
                account(-state.queue.reduce(0) { $0 + ($1.slot === slot ? $1.bytes : 0) }, in: &state)
                state.queue.removeAll { $0.slot === slot }
                slot.queued = 0
            }
            defer { state.roomWaiters = [] }
            return state.roomWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    private static func slot(of subscription: Subscription, in state: inout State) -> Slot {
        if let slot = state.slots[ObjectIdentifier(subscription)] { return slot }
        let slot = Slot(subscription)
        state.slots[ObjectIdentifier(subscription)] = slot
        return slot
    }

    /// Bytes queued and not yet taken by the socket.
    package var bytesQueued: Int { state.withLock { $0.bytes } }

    /// The connection may read more requests: fewer than `responseCapacity` answers and fewer
    /// than `byteCapacity` bytes wait for the client.
    var acceptsRequests: Bool { state.withLock { Self.acceptsRequests($0, self) } }

    private static func acceptsRequests(_ state: State, _ outbox: Outbox) -> Bool {
        state.finished || state.stopping
            || (state.responses < outbox.responseCapacity && state.bytes < outbox.byteCapacity)
    }

    /// Calls `resume` once the outbox accepts requests again (at once if it does now).
    /// The connection stops reading requests until then.
    func whenAcceptingRequests(_ resume: @escaping @Sendable () -> Void) {
        let now = state.withLock { state in
            if Self.acceptsRequests(state, self) { return true }
            state.requestRoomWaiters.append(resume)
            return false
        }
        if now { resume() }
    }

    /// Returns once the outbox accepts requests: a large answer is not built while the
    /// client has not read what waits for it.
    func untilAcceptingRequests() async {
        await withCheckedContinuation { continuation in whenAcceptingRequests { continuation.resume() } }
    }

    // MARK: Consumer

    /// What one `take` gave.
    struct Taken {
        var items: [Item] = []
        /// The bytes of their lines, newlines included: the size of the write.
        var bytes = 0
        /// Messages are still queued (the take stopped at its budget): take again.
        var more = false
    }

    /// Takes queued messages, about `maxBytes` of them (at least one), oldest first.
    /// Takes none when the queue is empty. Once a take leaves the queue empty, `onReady` is
    /// called again on the next message.
    func take(maxBytes: Int = 64 * 1024) -> Taken {
        let (taken, waiters, drained, resumes) = state.withLock { state in
            var taken = Taken()
            while taken.bytes < maxBytes, let queued = state.queue.popFirst() {
                taken.items.append(queued.item)
                taken.bytes += queued.bytes
                queued.slot?.queued -= 1
                if queued.isResponse { state.responses -= 1 }
            }
            account(-taken.bytes, in: &state)
            var drained: [CheckedContinuation<Void, Never>] = []
            if state.queue.isEmpty {
                state.signalled = false
                if state.finished { swap(&drained, &state.drainWaiters) }
            } else {
                taken.more = true
            }
            var waiters: [CheckedContinuation<Void, any Error>] = []
            if !taken.items.isEmpty { swap(&waiters, &state.roomWaiters) }
            var resumes: [@Sendable () -> Void] = []
            if Self.acceptsRequests(state, self) { swap(&resumes, &state.requestRoomWaiters) }
            return (taken, waiters, drained, resumes)
        }
        for waiter in waiters { waiter.resume() }
        for resume in resumes { resume() }
        for waiter in drained { waiter.resume() }
        return taken
    }

    /// The daemon stops: requests waiting for the client to read go on. A client that never
    /// reads would otherwise keep them waiting, its connection would never end, and the
    /// daemon's stop would run past its deadline into a crash.
    func stopWaitingForRoom() {
        let resumes = state.withLock { state in
            state.stopping = true
            defer { state.requestRoomWaiters = [] }
            return state.requestRoomWaiters
        }
        for resume in resumes { resume() }
    }

    /// No more messages are accepted; waiters for room are released.
    package func finish() {
        let waiters = state.withLock { state in
            state.finished = true
            defer { state.roomWaiters = [] }
            return state.roomWaiters
        }
        for waiter in waiters { waiter.resume(throwing: Closed()) }
    }

    /// Waits until everything queued before `finish()` was taken.
    package func drained() async {
        await withCheckedContinuation { continuation in
            let done = state.withLock { state in
                if state.queue.isEmpty { return true }
                state.drainWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// Releases `drained()` waiters without the queue emptying (the socket closed).
    package func abandon() {
        let waiters = state.withLock { state in
            state.finished = true
            state.queue.removeAll()
            state.responses = 0
            account(-state.bytes, in: &state)
            defer {
                state.drainWaiters = []
                state.roomWaiters = []
                state.requestRoomWaiters = []
            }
            return (state.drainWaiters, state.roomWaiters, state.requestRoomWaiters)
        }
        for waiter in waiters.0 { waiter.resume() }
        for waiter in waiters.1 { waiter.resume(throwing: Closed()) }
        for resume in waiters.2 { resume() }
    }

    private func push(_ item: Item, isResponse: Bool) {
        let signal = state.withLock { state -> Bool in
            guard !state.finished else { return false }
            let bytes = item.lineBytes
            state.queue.append(Queued(item: item, bytes: bytes, isResponse: isResponse, slot: nil))
            account(bytes, in: &state)
            if isResponse { state.responses += 1 }
            return Self.signal(&state)
        }
        if signal { onReady() }
    }

    private static func signal(_ state: inout State) -> Bool {
        defer { state.signalled = true }
        return !state.signalled
    }

    /// Returns at once when `hasRoom` holds, else at the next take or forget (checked under
    /// the lock, so a wake-up is never missed). Throws when the outbox finishes or the
    /// waiting task is cancelled.
    private func waitForRoom(_ hasRoom: (State) -> Bool) async throws {
        try Task.checkCancellation()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Outcome { case room, closed, wait }
                let outcome = state.withLock { state -> Outcome in
                    if state.finished { return .closed }
                    if hasRoom(state) { return .room }
                    state.roomWaiters.append(continuation)
                    return .wait
                }
                switch outcome {
                case .room: continuation.resume()
                case .closed: continuation.resume(throwing: Closed())
                case .wait: break
                }
            }
        } onCancel: {
            // Wake every waiter: each offers again, and the cancelled one's next wait throws.
            let waiters = state.withLock { state in
                defer { state.roomWaiters = [] }
                return state.roomWaiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    // MARK: Messages

    /// `{"jsonrpc":"2.0","method":"scan","params":{"subscription":"s1","event":` — the event
    /// and `scanSuffix` follow.
    static func scanPrefix(subscription: String) -> [UInt8] {
        var out = Array(#"{"jsonrpc":"2.0","method":"scan","params":{"subscription":"#.utf8)
        JSONOutput.appendString(subscription, to: &out)
        out.append(contentsOf: #","event":"#.utf8)
        return out
    }

    static let scanSuffix: [UInt8] = Array("}}".utf8)

    static func noticeNotification(_ notice: SubscriptionNotice, subscription: String) -> [UInt8] {
        let method: String
        var params: [(String, Payload)] = [("subscription", .string(subscription))]
        switch notice {
        case .deviceAdded(let device), .deviceRemoved(let device), .deviceChanged(let device):
            method =
                switch notice {
                case .deviceAdded: MethodCatalog.deviceAdded
                case .deviceRemoved: MethodCatalog.deviceRemoved
                default: MethodCatalog.deviceChanged
                }
            params.append(("device", (try? Payload.encoding(device)) ?? .value(.null)))
        case .gap(let from, let to):
            method = MethodCatalog.eventsGap
            params += [("from", .int(from)), ("to", .int(to))]
        }
        return RPCMessage.notification(method: method, params: .object(params))
    }

    static func overflowNotification(subscription: String, dropped: Int) -> [UInt8] {
        RPCMessage.notification(
            method: MethodCatalog.eventsOverflow,
            params: .object([("subscription", .string(subscription)), ("dropped", .int(dropped))]))
    }
}
