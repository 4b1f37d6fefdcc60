import DequeModule
import NIOCore
import ScanBridgeCore
import ScanBridgeRPC
import Synchronization

/// A connection's outgoing messages, in order: responses, notifications, daemon requests.
///
/// Each subscription may have at most `subscriptionCapacity` events waiting here; past that
/// it overflows instead of growing memory, so a client that stops reading costs a bounded
/// amount and never slows anyone else. Responses are bounded by the connection, which stops
/// reading requests while too many answers wait.
final class Outbox: SubscriptionSink, Sendable {
    enum Item {
        case message([UInt8], countedFor: ObjectIdentifier?)
        case overflow(Subscription)
    }

    private struct State {
        var queue: Deque<Item> = []
        var perSubscription: [ObjectIdentifier: Int] = [:]
        var responses = 0
        var writer: CheckedContinuation<[Item]?, Never>?
        var roomWaiters: [CheckedContinuation<Bool, any Error>] = []
        var finished = false
    }

    struct Closed: Error {}

    let subscriptionCapacity: Int
    let responseCapacity: Int
    private let state = Mutex(State())

    init(subscriptionCapacity: Int, responseCapacity: Int) {
        self.subscriptionCapacity = subscriptionCapacity
        self.responseCapacity = responseCapacity
    }

    // MARK: Producers

    /// A response or other message that must not be dropped.
    func enqueue(_ message: [UInt8]) {
        push(.message(message, countedFor: nil), countsAsResponse: true)
    }

    func offer(_ event: JournaledEvent, for subscription: Subscription) -> Bool {
        let key = ObjectIdentifier(subscription)
        let bytes = Self.scanNotification(event, subscription: subscription.id)
        let (accepted, writer) = state.withLock { state -> (Bool, CheckedContinuation<[Item]?, Never>?) in
            guard !state.finished else { return (true, nil) }
            guard state.perSubscription[key, default: 0] < subscriptionCapacity else { return (false, nil) }
            state.perSubscription[key, default: 0] += 1
            state.queue.append(.message(bytes, countedFor: key))
            return (true, Self.takeWriter(&state))
        }
        writer?.resume(returning: takeAll())
        return accepted
    }

    func send(_ event: JournaledEvent, for subscription: Subscription) async throws {
        let key = ObjectIdentifier(subscription)
        while !offer(event, for: subscription) {
            try await waitForRoom { $0.perSubscription[key, default: 0] < subscriptionCapacity }
        }
        if state.withLock({ $0.finished }) { throw Closed() }
    }

    func notify(_ notice: SubscriptionNotice, for subscription: Subscription) {
        push(.message(Self.noticeNotification(notice, subscription: subscription.id), countedFor: nil),
             countsAsResponse: false)
    }

    func overflowed(_ subscription: Subscription) {
        push(.overflow(subscription), countsAsResponse: false)
    }

    /// Waits while too many responses are queued: the caller stops reading requests meanwhile.
    func waitForResponseRoom() async throws {
        try await waitForRoom { $0.responses < responseCapacity }
    }

    /// No more messages: the writer drains what is queued and stops; waiters are released.
    func finish() {
        let (writer, waiters) = state.withLock { state in
            state.finished = true
            defer { state.roomWaiters = [] }
            return (state.queue.isEmpty ? Self.takeWriter(&state) : nil, state.roomWaiters)
        }
        writer?.resume(returning: nil)
        for waiter in waiters { waiter.resume(throwing: Closed()) }
    }

    // MARK: Writer

    /// Everything queued, waiting until there is something; nil once finished and drained.
    func next() async -> [Item]? {
        let ready = takeAll()
        if !ready.isEmpty { return ready }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let result: [Item]?? = state.withLock { state in
                    if !state.queue.isEmpty { return .some(Self.drain(&state)) }
                    if state.finished || Task.isCancelled { return .some(nil) }
                    state.writer = continuation
                    return .none
                }
                if let result { continuation.resume(returning: result) }
            }
        } onCancel: {
            let writer = state.withLock { Self.takeWriter(&$0) }
            writer?.resume(returning: nil)
        }
    }

    private func takeAll() -> [Item] {
        let (items, waiters) = state.withLock { state in
            let items = Self.drain(&state)
            defer { state.roomWaiters = [] }
            return (items, items.isEmpty ? [] : state.roomWaiters)
        }
        for waiter in waiters { waiter.resume(returning: false) }
        return items
    }

    private static func drain(_ state: inout State) -> [Item] {
        let items = Array(state.queue)
        state.queue.removeAll(keepingCapacity: true)
        state.perSubscription.removeAll(keepingCapacity: true)
        state.responses = 0
        return items
    }

    private static func takeWriter(_ state: inout State) -> CheckedContinuation<[Item]?, Never>? {
        defer { state.writer = nil }
        return state.writer
    }

    private func push(_ item: Item, countsAsResponse: Bool) {
        let writer = state.withLock { state -> CheckedContinuation<[Item]?, Never>? in
            guard !state.finished else { return nil }
            state.queue.append(item)
            if countsAsResponse { state.responses += 1 }
            return Self.takeWriter(&state)
        }
        writer?.resume(returning: takeAll())
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

    static func scanNotification(_ event: JournaledEvent, subscription: String) -> [UInt8] {
        RPCMessage.notification(
            method: MethodCatalog.scan,
            params: .object([("subscription", .string(subscription)), ("event", .raw(event.json))]))
    }

    static func noticeNotification(_ notice: SubscriptionNotice, subscription: String) -> [UInt8] {
        let method: String
        var params: [(String, Payload)] = [("subscription", .string(subscription))]
        switch notice {
        case .deviceAdded(let device), .deviceRemoved(let device), .deviceChanged(let device):
            method = switch notice {
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
