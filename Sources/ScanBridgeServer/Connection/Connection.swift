package import Logging
package import NIOCore
import ScanBridgeCore
import ScanBridgeModel
package import ScanBridgeRPC
import Synchronization

/// One client connection, whatever carries it (a Unix-socket line connection or a WebSocket):
/// takes its messages one by one, answers them, and carries its subscriptions' notifications.
/// The transport only frames and writes (`SocketWriter`) and reads (`RequestReader`). Requests run concurrently (bounded); their answers, the
/// notifications and daemon requests share one ordered outbox, which the socket writer
/// empties on the event loop.
package final class Connection: Sendable {
    let id: Int
    let role: Role
    let identity: ConnectionIdentity
    /// It lives for one HTTP call: methods that need the connection to stay open are refused.
    let isOneShot: Bool
    let outbox: Outbox
    let services: ServerServices
    let logger: Logger
    /// Requests to this client as an out-of-process handler, waiting for answers.
    let daemonRequests = DaemonRequests()
    /// Answers that may be large (`events.recent`) are built one at a time.
    let largeAnswers = TurnTaking()
    /// Products staged by `products.stage`, discarded when the connection ends uncommitted.
    let productStaging = ProductStaging()

    private struct State {
        var subscriptions: [String: Subscription] = [:]
        var nextSubscription = 1
        /// Handlers this client registered; unregistered when it disconnects.
        var handlers: [Router.Registration] = []
        var nextHandler = 0
        var handlersClosed = false
        var pendingRequests = 0
        /// Tasks answering requests, still running.
        var running = 0
        var idleWaiter: CheckedContinuation<Void, Never>?
        var inputEnded = false
        /// Why reading is off, if it is.
        var readingPauses: Set<ReadingPause> = []
        var inputWaiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())
    private let channel: any Channel
    private let executor: EventLoopTaskExecutor

    /// - Parameter writer: the transport's; nil for a connection that lives for one HTTP call.
    package init(
        id: Int, role: Role, identity: ConnectionIdentity, services: ServerServices, channel: any Channel,
        writer: SocketWriter?, logger: Logger
    ) {
        self.id = id
        self.role = role
        self.identity = identity
        self.isOneShot = writer == nil
        self.services = services
        self.channel = channel
        self.executor = EventLoopTaskExecutor(eventLoop: channel.eventLoop)
        self.logger = logger
        self.outbox = Outbox(
            subscriptionCapacity: services.limits.subscriptionQueue,
            responseCapacity: services.limits.pendingRequests,
            byteCapacity: services.limits.connectionBufferBytes, budget: services.buffers,
            onReady: { writer?.schedule() })
        // Without a writer (an HTTP call), answers go into the HTTP response, not the outbox.
        writer?.attach(outbox)
        outbox.whenOverflowed { [weak self] subscription in
            self?.removeSubscription(subscription.id, droppingQueued: false)
            self?.logger.warning("subscriber too slow; subscription closed", metadata: ["subscription": "\(subscription.id)"])
        }
    }

    /// Serves the connection until the client closes its side, breaks the framing, or the
    /// server stops; lets running requests finish, then flushes what is queued (for at most
    /// `drainTimeout`).
    package func run(drainTimeout: Duration = .seconds(2)) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ended = state.withLock { state in
                    if state.inputEnded { return true }
                    state.inputWaiter = continuation
                    return false
                }
                if ended { continuation.resume() }
            }
        } onCancel: {
            // The server stops: no more requests, and none of those running waits for room.
            self.inputEnded()
            self.outbox.stopWaitingForRoom()
        }
        // Stop replays and deliveries, stop routing events to this client, let running requests finish.
        closeSubscriptions()
        unregisterHandlers()
        await withCheckedContinuation { continuation in
            let idle = state.withLock { state in
                if state.running == 0 { return true }
                state.idleWaiter = continuation
                return false
            }
            if idle { continuation.resume() }
        }
        if productStaging.isUsed, let products = services.domain?.repositories.products {
            // An import that stopped before its commit must change nothing.
            try? await products.discardStaged(productStaging.area)
        }
        outbox.finish()
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.outbox.drained() }
            group.addTask { try? await Task.sleep(for: drainTimeout) }
            await group.next()
            group.cancelAll()
            outbox.abandon()
        }
    }

    // MARK: Input (on the event loop)

    /// One message from the client (a line, or a WebSocket text message), parsed here on the event loop; each request is answered in a
    /// task of its own.
    func received(_ line: ByteBuffer) {
        handle(ReceivedLine(line.readableBytesView, maxBatch: services.limits.maxBatch))
    }

    /// A line too long to parse on the event loop: parsed by `LongLineParser`, with reading
    /// paused meanwhile; `then` runs on the loop once it is handled.
    func receivedLong(_ line: ByteBuffer, then: @escaping @Sendable () -> Void) {
        pauseReading(.parsing)
        // Counted as running: a client that sends a long batch and shuts its side gets its answers.
        state.withLock { $0.running += 1 }
        LongLineParser.shared.parse(line, maxBatch: services.limits.maxBatch, on: channel.eventLoop).whenComplete {
            if case .success(let received) = $0 { self.handle(received) }
            self.finishedRunning()
            self.resumeReading(.parsing)
            then()
        }
    }

    private func handle(_ received: ReceivedLine) {
        switch received {
        case .blank:
            return
        case .parsed(.single(let message)):
            guard admit(message) else { return }
            spawn {
                defer { self.release(message) }
                let answer = await self.services.dispatcher.answer(message, on: self)
                if let payload = answer.payload { self.outbox.enqueue(JSONWriter.bytes(payload)) }
                await answer.afterResponse?()
            }
        case .parsed(.batch(let messages)) where messages.count <= services.limits.maxBatch:
            let admitted = messages.map { admit($0, answerIfRefused: false) }
            // On the shared pool, not this connection's event loop: a batch asks for throughput,
            // and one loop would do all of its work alone. Without an executor preference at
            // all: with one, every suspension asks the runtime for it under the task's status
            // lock (docs/architecture.md, Design decisions).
            spawn(preferringEventLoop: false) {
                let (line, followUps) = await self.answers(to: messages, admitted: admitted)
                if let line { self.outbox.enqueue(line) }
                for followUp in followUps { await followUp() }
            }
        default:
            if let refusal = refusal(of: received) { outbox.enqueue(refusal) }
        }
        // A client that sends requests but reads no answers is not read from until it does.
        guard !outbox.acceptsRequests, pauseReading(.answersUnread) else { return }
        outbox.whenAcceptingRequests { [channel] in
            channel.eventLoop.execute { self.resumeReading(.answersUnread) }
        }
    }

    /// The answer to a line refused before any of it runs: a batch of more than
    /// `server.max_batch` elements (one the scan for its size could not count, none that is
    /// valid JSON, is found only once parsed), or a line that is no JSON-RPC; nil otherwise.
    private func refusal(of received: ReceivedLine) -> [UInt8]? {
        switch received {
        case .batchTooLarge:
            services.serverMetrics.refused(.tooLarge)
            return RPCMessage.error(id: .null, batchTooLarge())
        case .parsed(.batch(let messages)) where messages.count > services.limits.maxBatch:
            services.serverMetrics.refused(.tooLarge)
            return RPCMessage.error(id: .null, batchTooLarge())
        case .parsed(.unparsable(let error)):
            return RPCMessage.error(id: .null, error)
        default:
            return nil
        }
    }

    /// A batch's answers as one line, in the batch's order (nil when none is due), and the
    /// work to run once it is queued. Releases the admitted messages.
    private func answers(to messages: [IncomingMessage], admitted: [Bool]) async
        -> (line: [UInt8]?, followUps: [@Sendable () async -> Void])
    {
        let accepted = zip(messages, admitted).filter(\.1).map(\.0)
        var answered = await services.dispatcher.answer(
            batch: accepted, on: self, maxBytes: services.limits.maxLineBytes
        ).makeIterator()
        for message in accepted { release(message) }
        var answers: [Payload] = []
        var followUps: [@Sendable () async -> Void] = []
        for (message, admitted) in zip(messages, admitted) {
            guard admitted else {
                if let refusal = overloaded(message) { answers.append(refusal) }
                continue
            }
            let answer = answered.next()!
            if let payload = answer.payload { answers.append(payload) }
            if let followUp = answer.afterResponse { followUps.append(followUp) }
        }
        return (answers.isEmpty ? nil : JSONWriter.bytes(.array(answers)), followUps)
    }

    /// The answer to one HTTP call's body, as the socket answers a line, under the same
    /// admission: the pending limit, notifications that only ask for an answer dropped, a
    /// batch's answers bounded. Nil when nothing needs an answer. For a connection without a
    /// writer, which lives for the call.
    package func answer(_ received: ReceivedLine) async -> [UInt8]? {
        switch received {
        case .blank:
            return RPCMessage.error(
                id: .null, RPCError(code: RPCError.invalidRequest, message: "invalid request: the body is empty"))
        case .parsed(.single(let message)):
            guard admit(message, answerIfRefused: false) else { return overloaded(message).map(JSONWriter.bytes) }
            defer { release(message) }
            let answer = await services.dispatcher.answer(message, on: self)
            await answer.afterResponse?()
            return answer.payload.map(JSONWriter.bytes)
        case .parsed(.batch(let messages)) where messages.count <= services.limits.maxBatch:
            let (line, followUps) = await answers(to: messages, admitted: messages.map { admit($0, answerIfRefused: false) })
            for followUp in followUps { await followUp() }
            return line
        default:
            return refusal(of: received)
        }
    }

    /// Why reading from the client is off; it is on again once no reason is left.
    private enum ReadingPause: Hashable {
        /// Until the client takes its answers.
        case answersUnread
        /// Until a long line is parsed.
        case parsing
    }

    /// Turns reading off for `reason` (on the event loop); false when it already was for it.
    @discardableResult
    private func pauseReading(_ reason: ReadingPause) -> Bool {
        let (added, first) = state.withLock { state in
            let first = state.readingPauses.isEmpty
            let added = state.readingPauses.insert(reason).inserted
            return (added, first)
        }
        if first { channel.setOption(ChannelOptions.autoRead, value: false).whenComplete { _ in } }
        return added
    }

    /// Lifts the pause for `reason` (on the event loop); reading resumes when none is left.
    private func resumeReading(_ reason: ReadingPause) {
        let last = state.withLock { $0.readingPauses.remove(reason) != nil && $0.readingPauses.isEmpty }
        guard last else { return }
        channel.setOption(ChannelOptions.autoRead, value: true).whenSuccess { [channel] in channel.read() }
    }

    /// The client sent a line over the limit: answer, then close once answered. (A WebSocket
    /// closes with 1009 instead, before its connection sees the message.)
    func receivedTooLong(limit: Int) {
        logger.warning("message too large; closing", metadata: ["limit": "\(limit)"])
        services.serverMetrics.refused(.tooLarge)
        outbox.enqueue(
            RPCMessage.error(
                id: .null,
                RPCError(
                    code: RPCError.invalidRequest,
                    message: "message too large: a line may hold at most \(limit) bytes; the connection is closed")))
        inputEnded()
    }

    /// The client closed its side, the socket broke, or the server stops: no more requests.
    func inputEnded() {
        let waiter = state.withLock { state in
            state.inputEnded = true
            defer { state.inputWaiter = nil }
            return state.inputWaiter
        }
        waiter?.resume()
    }

    /// Runs `work` as a task of this connection, on its event loop unless `preferringEventLoop` is false.
    private func spawn(preferringEventLoop: Bool = true, _ work: @escaping @Sendable () async -> Void) {
        state.withLock { $0.running += 1 }
        let run: @Sendable () async -> Void = {
            await work()
            self.finishedRunning()
        }
        if preferringEventLoop {
            Task(executorPreference: executor, operation: run)
        } else {
            Task(operation: run)
        }
    }

    private func finishedRunning() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.running -= 1
            guard state.running == 0 else { return nil }
            defer { state.idleWaiter = nil }
            return state.idleWaiter
        }
        waiter?.resume()
    }

    /// Counts a request or a notification against the connection's limit; answers a request
    /// `overloaded` past it (a notification past it is dropped: it has no answer to carry
    /// the refusal, and running it would let a client start work without bound). A
    /// notification of an answer-only method is never run (`MethodCatalog.answerOnly`).
    private func admit(_ message: IncomingMessage, answerIfRefused: Bool = true) -> Bool {
        guard message.countsAsPending else { return true }
        if case .notification(let method, _) = message, MethodCatalog.answerOnly.contains(method) { return false }
        let admitted = state.withLock { state in
            guard state.pendingRequests < services.limits.pendingRequests else { return false }
            state.pendingRequests += 1
            return true
        }
        if !admitted { services.serverMetrics.refused(.overloaded) }
        if !admitted, answerIfRefused, let refusal = overloaded(message) { outbox.enqueue(JSONWriter.bytes(refusal)) }
        if !admitted, case .notification(let method, _) = message {
            logger.debug("dropped a notification past the pending limit", metadata: ["rpc.method": "\(method)"])
        }
        return admitted
    }

    private func release(_ message: IncomingMessage) {
        guard message.countsAsPending else { return }
        state.withLock { $0.pendingRequests -= 1 }
    }

    private func batchTooLarge() -> RPCError {
        RPCError(
            code: RPCError.invalidRequest,
            message: "batch too large: a batch may hold at most \(services.limits.maxBatch) elements")
    }

    /// The `-32005` answer to a request refused past the pending limit; nil for a
    /// notification, which is dropped unanswered as every notification is: an answer
    /// without an id would read to the client as an answer to a request of its own.
    private func overloaded(_ message: IncomingMessage) -> Payload? {
        guard case .request(let id, _, _) = message else { return nil }
        return RPCMessage.errorPayload(
            id: id,
            RPCError(
                code: RPCError.overloaded,
                message:
                    "overloaded: more than \(services.limits.pendingRequests) requests and notifications are pending on this connection; wait for answers before sending more"
            ))
    }

    // MARK: Subscriptions

    /// Makes and keeps a subscription under a new id (`s1`, `s2`…); nil when the
    /// connection already has as many as allowed.
    func addSubscription<Extra>(_ make: (String) -> (Subscription, Extra)) -> (Subscription, Extra)? {
        state.withLock { state in
            guard state.subscriptions.count < services.limits.subscriptionsPerConnection else { return nil }
            let id = "s\(state.nextSubscription)"
            state.nextSubscription += 1
            let made = make(id)
            state.subscriptions[id] = made.0
            return made
        }
    }

    /// Removes a subscription; false when the connection has none by that id. With
    /// `droppingQueued`, what is still queued for it is dropped: nothing of it follows.
    @discardableResult
    func removeSubscription(_ id: String, droppingQueued: Bool) -> Bool {
        guard let subscription = state.withLock({ $0.subscriptions.removeValue(forKey: id) }) else { return false }
        services.bridge.publisher.remove(subscription)
        outbox.forget(subscription, droppingQueued: droppingQueued)
        return true
    }

    // MARK: Handlers

    /// Registers an out-of-process handler made with a new id (`h<connection>-<n>`); returns the id.
    /// Registers the handler `make` gives for a new id; nil when the connection already has
    /// as many as allowed.
    func registerHandler(_ make: (String) -> some ScanHandler) -> String? {
        let id = state.withLock { state -> String? in
            guard state.handlers.count < services.limits.handlersPerConnection else { return nil }
            state.nextHandler += 1
            return "h\(self.id)-\(state.nextHandler)"
        }
        guard let id else { return nil }
        let registration = services.bridge.router.register(make(id))
        // A connection that closed meanwhile must not leave its handler behind.
        let kept = state.withLock { state in
            guard !state.handlersClosed else { return false }
            state.handlers.append(registration)
            return true
        }
        if !kept { services.bridge.router.unregister(registration) }
        return id
    }

    private func unregisterHandlers() {
        let registrations = state.withLock { state in
            defer {
                state.handlers = []
                state.handlersClosed = true
            }
            return state.handlers
        }
        for registration in registrations { services.bridge.router.unregister(registration) }
        daemonRequests.close()
    }

    private func closeSubscriptions() {
        let all = state.withLock { state in
            defer { state.subscriptions = [:] }
            return Array(state.subscriptions.values)
        }
        for subscription in all {
            services.bridge.publisher.remove(subscription)
            // Wakes a replay waiting for room, to find its subscription closed.
            outbox.forget(subscription, droppingQueued: false)
        }
    }
}

extension IncomingMessage {
    /// Requests and notifications run a method: each counts against `pending_requests`.
    fileprivate var countsAsPending: Bool {
        switch self {
        case .request, .notification: true
        default: false
        }
    }
}
