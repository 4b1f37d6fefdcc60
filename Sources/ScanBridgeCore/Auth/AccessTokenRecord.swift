public import Foundation

/// An access token of the gateway as it is stored: never its secret, only the secret's SHA-256.
public struct AccessTokenRecord: Sendable, Hashable {
    /// Public and stable (`tok_…`): what `tokens.list` shows and `tokens.revoke` takes.
    public var id: String
    public var name: String
    /// `reader`, `operator` or `admin`, as the protocol spells roles.
    public var role: String
    /// `scheme://host[:port]` origins a browser may use the token from.
    public var origins: [String]
    /// SHA-256 of the secret, 32 bytes.
    public var secretHash: [UInt8]
    public var createdAt: Date
    public var expiresAt: Date?
    public var lastUsedAt: Date?

    public init(
        id: String, name: String, role: String, origins: [String], secretHash: [UInt8], createdAt: Date,
        expiresAt: Date?, lastUsedAt: Date?
    ) {
        self.id = id
        self.name = name
        self.role = role
        self.origins = origins
        self.secretHash = secretHash
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.lastUsedAt = lastUsedAt
    }
}
