import Foundation

/// Where the gateway's access tokens are kept. A revoked token is deleted: nothing about it
/// is needed afterwards, and a deleted row cannot be brought back by a bug.
public protocol AccessTokenRepository: Sendable {
    /// Every token. Blocking: for the daemon's start, off the cooperative pool.
    func all() throws -> [AccessTokenRecord]
    /// Saves a new token unless `limit` tokens are kept already (checked in the same
    /// transaction, so concurrent creations cannot pass it); false when it was not saved.
    func insert(_ token: AccessTokenRecord, limit: Int) async throws -> Bool
    /// False when there was no such token.
    func delete(id: String) async throws -> Bool
    /// Records when the token was last used.
    func recordUse(id: String, at time: Date) async throws
}
