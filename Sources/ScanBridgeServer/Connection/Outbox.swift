import DequeModule
import NIOCore
import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeRPC
import Synchronization

/// A connection's outgoing messages, in order: responses, notifications, daemon requests.
///
/// Each subscription may have at most `subscriptionCapacity` events waiting here; past that
/// it overflows instead of growing memory, so a client that stops reading costs a bounded
/// amount and never slows anyone else. Responses are bounded by the connection, which stops
/// reading requests while too many answers wait.
///
/// The outbox does no I/O: it calls `onReady` when messages arrive, and the connection's
/// flusher `take`s them while the socket is writable. What the socket cannot take stays
/// here, counted, so the bound holds however slow the client is.
final class Outbox: SubscriptionSink, Sendable {
    enum Item {
        case message([UInt8])
        /// A `scan` notification: written as prefix, the event's JSON, suffix, without copying the event.
        case scan(JournaledEvent, prefix: [UInt8])
        case overflow(Subscription)

        /// The bytes of its line with the newline (an overflow notice's, about).
        var lineBytes: Int {
            switch self {
            case .message(let bytes): bytes.count + 1
            case .scan(let event, let prefix): prefix.count + event.json.count + Outbox.scanSuffix.count + 1
            case .overflow: 128
            }
        }
    }

    /// One subscription's place here: its notification prefix, built once, and how many of
    /// its events wait. Found by the subscription's identity, and reached from its queued
    /// events directly, so no string is hashed for each event and subscriber on its way in
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
        let isResponse: Bool
        /// The subscription whose count the item is in (scans only).
        let slot: Slot?
    }

    private struct State {
        var queue: Deque<Queued> = []
        var slots: [ObjectIdentifier: Slot] = [:]
        var responses = 0
        /// `onReady` was called and the queue has not been emptied since.
        var signalled = false
        var roomWaiters: [CheckedContinuation<Bool, any Error>] = []
        var drainWaiters: [CheckedContinuation<Void, Never>] = []
        var responseRoomWaiters: [@Sendable () -> Void] = []
        var finished = false
    }

    struct Closed: Error {}

    let subscriptionCapacity: Int
    let responseCapacity: Int
    private let onReady: @Sendable () -> Void
    private let state = Mutex(State())

    init(subscriptionCapacity: Int, responseCapacity: Int, onReady: @escaping @Sendable () -> Void) {
        self.subscriptionCapacity = subscriptionCapacity
        self.responseCapacity = responseCapacity
        self.onReady = onReady
    }

    // MARK: Producers

    /// A response or other message that must not be dropped.
    func enqueue(_ message: [UInt8]) {
        push(.message(message), isResponse: true)
    }

    func offer(_ event: JournaledEvent, for subscription: Subscription) -> Bool {
        let (accepted, signal) = state.withLock { state -> (Bool, Bool) in
            guard !state.finished else { return (true, false) }
            let slot = Self.slot(of: subscription, in: &state)
            guard slot.queued < subscriptionCapacity else { return (false, false) }
            slot.queued += 1
            state.queue.append(Queued(item: .scan(event, prefix: slot.prefix), isResponse: false, slot: slot))
            return (true, Self.signal(&state))
        }
        if signal { onReady() }
        return accepted
    }

    func send(_ event: JournaledEvent, for subscription: Subscription) async throws {
        let id = ObjectIdentifier(subscription)
        while !offer(event, for: subscription) {
            try await waitForRoom { ($0.slots[id]?.queued ?? 0) < subscriptionCapacity }
        }
        if state.withLock({ $0.finished }) { throw Closed() }
    }

    func notify(_ notice: SubscriptionNotice, for subscription: Subscription) {
        push(.message(Self.noticeNotification(notice, subscription: subscription.id)), isResponse: false)
    }

    func overflowed(_ subscription: Subscription) {
        push(.overflow(subscription), isResponse: false)
    }

    /// Drops what the outbox kept for a subscription that ended.
    func forget(_ subscription: Subscription) {
        _ = state.withLock { $0.slots.removeValue(forKey: ObjectIdentifier(subscription)) }
    }

    private static func slot(of subscription: Subscription, in state: inout State) -> Slot {
        if let slot = state.slots[ObjectIdentifier(subscription)] { return slot }
        let slot = Slot(subscription)
        state.slots[ObjectIdentifier(subscription)] = slot
        return slot
    }

    /// Answers queued and not yet taken by the socket.
    var responsesQueued: Int { state.withLock { $0.responses } }

    /// Calls `resume` once fewer than `responseCapacity` answers are queued (at once if so now).
    /// The connection stops reading requests until then.
    func whenResponseRoom(_ resume: @escaping @Sendable () -> Void) {
        let now = state.withLock { state in
            if state.responses < responseCapacity || state.finished { return true }
            state.responseRoomWaiters.append(resume)
            return false
        }
        if now { resume() }
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
                taken.bytes += queued.item.lineBytes
                queued.slot?.queued -= 1
                if queued.isResponse { state.responses -= 1 }
            }
            var drained: [CheckedContinuation<Void, Never>] = []
            if state.queue.isEmpty {
                state.signalled = false
                if state.finished { swap(&drained, &state.drainWaiters) }
            } else {
                taken.more = true
            }
            var waiters: [CheckedContinuation<Bool, any Error>] = []
            if !taken.items.isEmpty { swap(&waiters, &state.roomWaiters) }
            var resumes: [@Sendable () -> Void] = []
            if state.responses < responseCapacity { swap(&resumes, &state.responseRoomWaiters) }
            return (taken, waiters, drained, resumes)
        }
        for waiter in waiters { waiter.resume(returning: false) }
        for resume in resumes { resume() }
        for waiter in drained { waiter.resume() }
        return taken
    }

    /// No more messages are accepted; waiters for room are released.
    func finish() {
        let waiters = state.withLock { state in
            state.finished = true
            defer { state.roomWaiters = [] }
            return state.roomWaiters
        }
        for waiter in waiters { waiter.resume(throwing: Closed()) }
    }

    /// Waits until everything queued before `finish()` was taken.
    func drained() async {
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
    func abandon() {
        let waiters = state.withLock { state in
            state.finished = true
            state.queue.removeAll()
            state.responses = 0
            defer {
                state.drainWaiters = []
                state.roomWaiters = []
                state.responseRoomWaiters = []
            }
            return (state.drainWaiters, state.roomWaiters, state.responseRoomWaiters)
        }
        for waiter in waiters.0 { waiter.resume() }
        for waiter in waiters.1 { waiter.resume(throwing: Closed()) }
        for resume in waiters.2 { resume() }
    }

    private func push(_ item: Item, isResponse: Bool) {
        let signal = state.withLock { state -> Bool in
            guard !state.finished else { return false }
            state.queue.append(Queued(item: item, isResponse: isResponse, slot: nil))
            if isResponse { state.responses += 1 }
            return Self.signal(&state)
        }
        if signal { onReady() }
    }

    private static func signal(_ state: inout State) -> Bool {
        defer { state.signalled = true }
        return !state.signalled
    }

    /// Returns once `hasRoom` holds; checked under the lock, so a wake-up is never missed.
    /// Throws when the outbox finishes or the waiting task is cancelled.
    private func waitForRoom(_ hasRoom: (State) -> Bool) async throws {
        while true {
            try Task.checkCancellation()
            let done: Bool = try await withTaskCancellationHandler {
                try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Bool, any Error>) in
                    enum Outcome { case room, closed, wait }
                    let outcome = state.withLock { state -> Outcome in
                        if state.finished { return .closed }
                        if hasRoom(state) { return .room }
                        state.roomWaiters.append(continuation)
                        return .wait
                    }
                    switch outcome {
                    case .room: continuation.resume(returning: true)
                    case .closed: continuation.resume(throwing: Closed())
                    case .wait: break
                    }
                }
            } onCancel: {
                // Wake every waiter; each re-checks and the cancelled one throws.
                let waiters = state.withLock { state in
                    defer { state.roomWaiters = [] }
                    return state.roomWaiters
                }
                for waiter in waiters { waiter.resume(returning: false) }
            }
            if done { return }
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
