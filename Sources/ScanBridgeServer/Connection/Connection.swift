import Logging
import NIOCore
import ScanBridgeCore
import ScanBridgeRPC
import Synchronization

/// One client connection: reads requests line by line, answers them, and carries its
/// subscriptions' notifications. Requests run concurrently (bounded); their answers, the
/// notifications and daemon requests share one ordered outbox, which the socket writer
/// empties on the event loop.
final class Connection: Sendable {
    let id: Int
    let role: Role
    let peer: PeerCredentials
    let outbox: Outbox
    let services: ServerServices
    let logger: Logger

    private struct State {
        var subscriptions: [String: Subscription] = [:]
        var nextSubscription = 1
        var pendingRequests = 0
    }

    private let state = Mutex(State())

    init(
        id: Int, role: Role, peer: PeerCredentials, services: ServerServices, writer: SocketWriter, logger: Logger
    ) {
        self.id = id
        self.role = role
        self.peer = peer
        self.services = services
        self.logger = logger
        self.outbox = Outbox(
            subscriptionCapacity: services.limits.subscriptionQueue,
            responseCapacity: services.limits.pendingRequests,
            onReady: { writer.schedule() })
        writer.attach(outbox) { [weak self] subscription in
            let dropped = subscription.closeAfterOverflow()
            self?.removeSubscription(subscription.id)
            self?.logger.warning("subscriber too slow; subscription closed",
                                 metadata: ["subscription": "\(subscription.id)", "dropped": "\(dropped)"])
            return dropped
        }
    }

    /// Serves the connection until the client closes it, it breaks the framing, or the server
    /// stops; then flushes what is queued (for at most `drainTimeout`).
    func run(inbound: NIOAsyncChannelInboundStream<ByteBuffer>, drainTimeout: Duration = .seconds(2)) async {
        await withDiscardingTaskGroup { requests in
            await self.read(inbound, into: &requests)
            // The client is gone or done: stop replays and deliveries, let running requests finish.
            self.closeSubscriptions()
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

    private func read(_ inbound: NIOAsyncChannelInboundStream<ByteBuffer>, into requests: inout DiscardingTaskGroup)
        async
    {
        do {
            for try await line in inbound {
                try await outbox.waitForResponseRoom()
                handle(line: line, requests: &requests)
            }
        } catch let error as LineFrameDecoder.LineTooLong {
            logger.warning("message too large; closing", metadata: ["limit": "\(error.limit)"])
            outbox.enqueue(RPCMessage.error(id: .null, RPCError(
                code: RPCError.invalidRequest,
                message: "message too large: a line may hold at most \(error.limit) bytes; the connection is closed")))
        } catch {
            logger.debug("read ended", metadata: ["error": "\(error)"])
        }
    }

    private func handle(line: ByteBuffer, requests: inout DiscardingTaskGroup) {
        let bytes = line.readableBytesView
        if bytes.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) { return }
        switch IncomingMessage.parse(bytes) {
        case .unparsable(let error):
            outbox.enqueue(RPCMessage.error(id: .null, error))
        case .single(let message):
            guard admit(message) else { return }
            requests.addTask {
                defer { self.release(message) }
                let (payload, afterResponse) = await self.services.dispatcher.answer(message, on: self)
                if let payload { self.outbox.enqueue(JSONWriter.bytes(payload)) }
                await afterResponse?()
            }
        case .batch(let messages):
            let admitted = messages.map { admit($0, answerIfRefused: false) }
            requests.addTask {
                var answers: [Payload] = []
                var followUps: [@Sendable () async -> Void] = []
                for (message, admitted) in zip(messages, admitted) {
                    guard admitted else {
                        answers.append(self.overloaded(message))
                        continue
                    }
                    defer { self.release(message) }
                    let (payload, afterResponse) = await self.services.dispatcher.answer(message, on: self)
                    if let payload { answers.append(payload) }
                    if let afterResponse { followUps.append(afterResponse) }
                }
                if !answers.isEmpty { self.outbox.enqueue(JSONWriter.bytes(.array(answers))) }
                for followUp in followUps { await followUp() }
            }
        }
    }

    /// Counts a request against the connection's limit; answers `overloaded` past it.
    private func admit(_ message: IncomingMessage, answerIfRefused: Bool = true) -> Bool {
        guard case .request = message else { return true }
        let admitted = state.withLock { state in
            guard state.pendingRequests < services.limits.pendingRequests else { return false }
            state.pendingRequests += 1
            return true
        }
        if !admitted && answerIfRefused { outbox.enqueue(JSONWriter.bytes(overloaded(message))) }
        return admitted
    }

    private func release(_ message: IncomingMessage) {
        guard case .request = message else { return }
        state.withLock { $0.pendingRequests -= 1 }
    }

    private func overloaded(_ message: IncomingMessage) -> Payload {
        guard case .request(let id, _, _) = message else { return .emptyObject }
        return RPCMessage.errorPayload(id: id, RPCError(
            code: RPCError.overloaded,
            message: "overloaded: more than \(services.limits.pendingRequests) requests are pending on this connection; wait for answers before sending more"))
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

    /// Removes a subscription; false when the connection has none by that id.
    @discardableResult
    func removeSubscription(_ id: String) -> Bool {
        guard let subscription = state.withLock({ $0.subscriptions.removeValue(forKey: id) }) else { return false }
        services.bridge.publisher.remove(subscription)
        outbox.forget(subscription)
        return true
    }

    private func closeSubscriptions() {
        let all = state.withLock { state in
            defer { state.subscriptions = [:] }
            return Array(state.subscriptions.values)
        }
        for subscription in all { services.bridge.publisher.remove(subscription) }
    }
}
