import Foundation
import ScanBridgeModel
import ScanBridgeRPC

/// `tokens.*`: the gateway's access tokens, managed by an admin (`MethodCatalog` gives these
/// methods the admin role). The secret is in `tokens.create`'s answer and nowhere else.
enum TokenMethods {
    static let all: [String: RPCMethod] = [
        "tokens.create": { params, connection in
            let tokens = try tokens(connection)
            let name = try params.requiredString("name")
            let roleName = try params.requiredString("role")
            guard let role = Role.named(roleName) else {
                throw ScanBridgeError.invalidParams(
                    "role must be reader, operator or admin; got '\(roleName.prefix(32))'", field: "role")
            }
            let (token, secret) = try await tokens.create(
                name: name, role: role, origins: try params.strings("origins") ?? [], expiresAt: try params.time("expiresAt"))
            return MethodOutcome(.object([("token", wire(token)), ("secret", .string(secret))]))
        },
        "tokens.list": { _, connection in
            MethodOutcome(.object([("tokens", .array(try tokens(connection).list().map(wire)))]))
        },
        "tokens.revoke": { params, connection in
            let id = try params.requiredString("id")
            guard try await tokens(connection).revoke(id) else {
                throw ScanBridgeError.notFound("no access token '\(id.prefix(64))'; tokens.list shows the ones kept")
            }
            return MethodOutcome(.emptyObject)
        },
    ]

    /// `Token` (docs/protocol.md): never the secret, nor its hash.
    static func wire(_ token: AccessTokens.Token) -> Payload {
        func time(_ date: Date?) -> Payload { date.map { .string(EventTime.format($0)) } ?? .value(.null) }
        return .object([
            ("id", .string(token.id)), ("name", .string(token.name)), ("role", .string(token.role.description)),
            ("origins", .value(.array(token.origins.map(JSONValue.string)))),
            ("createdAt", .string(EventTime.format(token.createdAt))), ("expiresAt", time(token.expiresAt)),
            ("lastUsedAt", time(token.lastUsedAt)),
        ])
    }

    private static func tokens(_ connection: Connection) throws -> AccessTokens {
        guard let tokens = connection.services.tokens as? AccessTokens else {
            throw ScanBridgeError.unavailable("this daemon keeps no access tokens (it runs without a database)")
        }
        return tokens
    }
}
