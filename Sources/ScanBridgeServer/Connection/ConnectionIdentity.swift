import ScanBridgeCore

/// Who is at the other end of a connection: a local user the kernel named, or the holder of
/// a gateway access token.
package enum ConnectionIdentity: Sendable, Hashable, CustomStringConvertible {
    case peer(PeerCredentials)
    /// The token's id, never its secret.
    case token(id: String)

    package var description: String {
        switch self {
        case .peer(let peer): "\(peer)"
        case .token(let id): "token \(id)"
        }
    }
}

extension Connection {
    /// Where the connection's subscriptions stand in the publisher's order: the Unix
    /// socket's first (`Publisher.Tier`).
    var tier: Publisher.Tier {
        switch identity {
        case .peer: .local
        case .token: .remote
        }
    }
}
