package import Foundation
package import ScanBridgeRPC

/// An access token as the gateway sees it once its secret has been checked.
package struct AuthenticatedToken: Sendable, Hashable {
    package let id: String
    package let role: Role
    /// Origins allowed with this token, beside the gateway's own `http.origins`.
    package let origins: [String]
    package let expiresAt: Date?

    package init(id: String, role: Role, origins: [String], expiresAt: Date?) {
        self.id = id
        self.role = role
        self.origins = origins
        self.expiresAt = expiresAt
    }
}

/// Checks the secrets of the gateway's access tokens (docs/protocol.md, Web and network access).
package protocol TokenAuthority: Sendable {
    /// The token whose secret this is, when it is valid now: known, not revoked, not expired.
    /// Records the use (`lastUsedAt`). Never logs the secret.
    func authenticate(secret: String) async -> AuthenticatedToken?

    /// A ticket for one of the token's streams (`events.ticket`), and when it expires; nil
    /// when the token is no longer valid.
    func issueTicket(for tokenID: String) -> (ticket: String, expiresAt: Date)?

    /// The token a stream's ticket stands for, when the ticket is known, unused and unexpired
    /// and its token still valid. The ticket is used up by this.
    func redeem(ticket: String) async -> AuthenticatedToken?

    /// Calls `ended` once, within a second, when the token is revoked or expires; the
    /// gateway closes the token's open connections then. Cancel the watch when the
    /// connection closes first.
    func watch(_ id: String, ended: @escaping @Sendable () -> Void) -> TokenWatch
}

/// A watch on a token's end; `cancel()` stops it (idempotent).
package final class TokenWatch: Sendable {
    private let onCancel: @Sendable () -> Void

    package init(onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = onCancel
    }

    package func cancel() { onCancel() }
}
