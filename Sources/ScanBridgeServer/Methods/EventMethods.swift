import Logging
import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeRPC

/// `events.subscribe`, `events.unsubscribe`, `events.recent`, `events.ticket`.
enum EventMethods {
    static let all: [String: RPCMethod] = [
        "events.subscribe": subscribe,
        "events.unsubscribe": { params, connection in
            let id = try params.requiredString("subscription")
            guard connection.removeSubscription(id, droppingQueued: true) else {
                throw ScanBridgeError.notFound("no subscription '\(id)' on this connection")
            }
            return MethodOutcome(.emptyObject)
        },
        "events.recent": { params, connection in
            let limit = try params.integer("limit", in: 1...1000) ?? 50
            let kinds = try params.kinds("kinds")
            let events = try await connection.largeAnswers.run {
                await connection.outbox.untilAcceptingRequests()
                return try await connection.services.bridge.journal.recent(
                    limit: Int(limit), kinds: kinds, maxBytes: recentBytes)
            }
            return MethodOutcome(.object([("events", .array(events.map { .raw(connection.json(of: $0)) }))]))
        },
        "events.ticket": { _, connection in
            guard case .token(let id) = connection.identity, let tokens = connection.services.tokens else {
                throw ScanBridgeError.unavailable(
                    "a ticket opens one of the gateway's streams for an access token: call events.ticket over the gateway with the token"
                )
            }
            guard let (ticket, expiresAt) = tokens.issueTicket(for: id) else {
                throw ScanBridgeError.unavailable("the access token was revoked or has expired")
            }
            return MethodOutcome(.object([("ticket", .string(ticket)), ("expiresAt", .string(EventTime.format(expiresAt)))]))
        },
    ]

    /// The most JSON an `events.recent` answer carries: as much as a request line may.
    static let recentBytes = 1 << 20

    private static let subscribe: RPCMethod = { params, connection in
        let filter = SubscriptionFilter(kinds: try params.kinds("kinds"), devices: try params.strings("devices").map(Set.init))
        let since = try params.integer("since", in: 0...Int64.max).map(UInt64.init)
        let bridge = connection.services.bridge
        guard
            let (subscription, head) = connection.addSubscription({ id in
                bridge.publisher.subscribe(
                    id: id, filter: filter, sink: connection.eventSink, replaying: since != nil, tier: connection.tier)
            })
        else {
            throw ScanBridgeError.overloaded(
                "this connection has \(connection.services.limits.subscriptionsPerConnection) subscriptions already; unsubscribe one first"
            )
        }
        let result = Payload.object([("subscription", .string(subscription.id)), ("seq", .int(head))])
        guard let since else { return MethodOutcome(result) }
        return MethodOutcome(result) {
            do {
                try await bridge.replay(subscription, after: since, through: head)
            } catch {
                connection.logger.warning(
                    "replay stopped", metadata: ["subscription": "\(subscription.id)", "error": "\(error)"])
                connection.removeSubscription(subscription.id, droppingQueued: false)
            }
        }
    }
}
