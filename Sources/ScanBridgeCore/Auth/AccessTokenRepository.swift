public import Foundation

/// Where the gateway's access tokens are kept. A revoked token is deleted: nothing about it
/// is needed afterwards, and a deleted row cannot be brought back by a bug.
public protocol AccessTokenRepository: Sendable {
    /// Every token. Blocking: for the daemon's start, off the cooperative pool.
    func all() throws -> [AccessTokenRecord]
    /// Saves a new token unless `limit` tokens are kept already and none of them had expired
    /// by `now` (checked in the same transaction, so concurrent creations cannot pass it).
    /// At the limit, the token that expired longest ago is deleted to make room, and named.
    func insert(_ token: AccessTokenRecord, limit: Int, now: Date) async throws -> TokenInsertion
    /// False when there was no such token.
    func delete(id: String) async throws -> Bool
    /// Records when the token was last used.
    func recordUse(id: String, at time: Date) async throws
}

/// What `AccessTokenRepository.insert` did.
public enum TokenInsertion: Sendable, Equatable {
    case saved
    /// Saved in the place of this expired token, deleted.
    case savedReplacing(id: String)
    /// Not saved: the limit is reached by tokens still valid.
    case full
}
