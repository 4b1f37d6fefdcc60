import Synchronization

/// The connections open at once, in all and by user: one user's program opening sockets
/// in a loop cannot take every file descriptor or every slot from the others.
final class ConnectionSlots: Sendable {
    private struct State {
        var open = 0
        var byUser: [UInt32: Int] = [:]
    }

    private let state = Mutex(State())
    let limit: Int
    let limitPerUser: Int

    init(limit: Int, limitPerUser: Int) {
        self.limit = limit
        self.limitPerUser = limitPerUser
    }

    /// Takes a slot for a connection of `uid`; nil when one is free, else why none is.
    func take(for uid: UInt32) -> String? {
        state.withLock { state in
            if state.open >= limit { return "the daemon has \(limit) connections open, its limit" }
            if state.byUser[uid, default: 0] >= limitPerUser {
                return "user \(uid) has \(limitPerUser) connections open, the limit for one user"
            }
            state.open += 1
            state.byUser[uid, default: 0] += 1
            return nil
        }
    }

    /// Gives back the slot `take(for:)` gave.
    func release(for uid: UInt32) {
        state.withLock { state in
            state.open -= 1
            let left = state.byUser[uid, default: 1] - 1
            state.byUser[uid] = left > 0 ? left : nil
        }
    }
}
