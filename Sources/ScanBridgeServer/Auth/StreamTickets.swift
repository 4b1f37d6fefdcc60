import Foundation
import Synchronization

/// Tickets for the gateway's streams (`events.ticket`, docs/protocol.md): a browser's
/// EventSource cannot send a header, so a page asks for a ticket over `POST /v1/rpc` with its
/// token and opens `/v1/events?ticket=…`. A ticket stands for its token, is taken by the first
/// stream that shows it and is worth nothing after `lifetime`: the address a proxy's log or a
/// browser's history keeps opens nothing.
///
/// Held by the SHA-256 of the ticket, as tokens are; bounded per token and in all, the oldest
/// giving way, so a token that asks without end holds no more memory than `perToken` tickets.
final class StreamTickets: Sendable {
    static let prefix = "sbk_"
    /// The prefix, then 32 random bytes in unpadded base64url, as a token's secret.
    static let length = prefix.utf8.count + 43
    static let lifetime: TimeInterval = 60
    static let perToken = 8
    static let total = 4096

    private struct Ticket {
        let tokenID: String
        let expiresAt: Date
    }

    private struct State {
        var tickets: [[UInt8]: Ticket] = [:]
        /// Hashes in the order they were issued, for the oldest to give way.
        var order: [[UInt8]] = []

        mutating func remove(_ hash: [UInt8]) {
            tickets.removeValue(forKey: hash)
            order.removeAll { $0 == hash }
        }
    }

    private let state = Mutex(State())

    /// A new ticket for the token `tokenID`, and when it stops being worth anything.
    func issue(for tokenID: String, at time: Date) -> (ticket: String, expiresAt: Date) {
        let ticket = Self.prefix + AccessTokens.randomText()
        let expiresAt = time.addingTimeInterval(Self.lifetime)
        let hash = AccessTokens.hash(ticket)
        state.withLock { state in
            // Tickets live alike, so the expired ones come first.
            let expired = state.order.prefix { state.tickets[$0].map { $0.expiresAt <= time } ?? true }
            for old in expired { state.tickets.removeValue(forKey: old) }
            state.order.removeFirst(expired.count)
            let mine = state.order.filter { state.tickets[$0]?.tokenID == tokenID }
            if mine.count >= Self.perToken { state.remove(mine[0]) }
            if state.order.count >= Self.total { state.remove(state.order[0]) }
            state.tickets[hash] = Ticket(tokenID: tokenID, expiresAt: expiresAt)
            state.order.append(hash)
        }
        return (ticket, expiresAt)
    }

    /// The token a ticket stands for, once: the ticket is gone after this. Nil for an unknown,
    /// used or expired ticket.
    func redeem(_ ticket: String, at time: Date) -> String? {
        guard ticket.utf8.count == Self.length, ticket.hasPrefix(Self.prefix) else { return nil }
        let hash = AccessTokens.hash(ticket)
        return state.withLock { state -> String? in
            guard let found = state.tickets[hash] else { return nil }
            state.remove(hash)
            return found.expiresAt > time ? found.tokenID : nil
        }
    }

    /// Forgets a revoked token's tickets.
    func forget(tokenID: String) {
        state.withLock { state in
            for hash in state.order where state.tickets[hash]?.tokenID == tokenID { state.remove(hash) }
        }
    }
}
