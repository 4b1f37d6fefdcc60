import Foundation
import ScanBridgeCore
import Synchronization

/// Access tokens kept in memory, counting the writes `AccessTokens` makes.
final class MemoryAccessTokens: AccessTokenRepository {
    struct State {
        var tokens: [AccessTokenRecord] = []
        var usesRecorded = 0
    }

    let state = Mutex(State())

    func all() throws -> [AccessTokenRecord] { state.withLock { $0.tokens } }

    func insert(_ token: AccessTokenRecord, limit: Int, now: Date) async throws -> TokenInsertion {
        state.withLock { state in
            var insertion = TokenInsertion.saved
            if state.tokens.count >= limit {
                let expired = state.tokens.filter { ($0.expiresAt ?? .distantFuture) <= now }
                guard let oldest = expired.min(by: { ($0.expiresAt!, $0.id) < ($1.expiresAt!, $1.id) }) else { return .full }
                state.tokens.removeAll { $0.id == oldest.id }
                insertion = .savedReplacing(id: oldest.id)
            }
            state.tokens.append(token)
            return insertion
        }
    }

    func delete(id: String) async throws -> Bool {
        state.withLock { state in
            let before = state.tokens.count
            state.tokens.removeAll { $0.id == id }
            return state.tokens.count < before
        }
    }

    func recordUse(id: String, at time: Date) async throws {
        state.withLock { state in
            state.usesRecorded += 1
            for index in state.tokens.indices where state.tokens[index].id == id { state.tokens[index].lastUsedAt = time }
        }
    }
}

/// A clock a test sets by hand.
final class ManualNow: Sendable {
    private let time: Mutex<Date>
    init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) { time = Mutex(start) }
    func advance(by seconds: TimeInterval) { time.withLock { $0 += seconds } }
    var now: @Sendable () -> Date { { self.time.withLock { $0 } } }
}
