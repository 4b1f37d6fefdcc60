import CLibCrypto
package import Foundation
package import Logging
package import ScanBridgeCore
import ScanBridgeModel
package import ScanBridgeRPC
import Synchronization

/// The gateway's access tokens (docs/protocol.md, Web and network access): made, listed and
/// revoked by an admin over the socket, checked for every gateway request.
///
/// Every token is held in memory (there are at most `Limits.tokens`), by the SHA-256 of its
/// secret: checking a secret reads no database, and a lookup by hash gives an attacker no
/// timing to learn from, since they cannot choose the bytes of the hash. The store is written
/// when a token is made or revoked, and when it was last used at most once a minute.
package final class AccessTokens: TokenAuthority {
    /// Bounds on what one admin can make the daemon keep.
    package struct Limits: Sendable {
        package var tokens = 1000
        package var nameCharacters = 100
        package var nameBytes = 256
        package var origins = 16
        /// The longest a token may live: a token made without an expiry gets this one. A
        /// year by default, so a secret that leaks into a tablet's backup stops working in
        /// time; nil lets a token live until it is revoked.
        package var maxLifetimeDays: Int? = 365

        package init() {}
    }

    /// A token's public face, as `tokens.list` shows it.
    package struct Token: Sendable, Hashable {
        package let id: String
        package let name: String
        package let role: Role
        package let origins: [String]
        package let createdAt: Date
        package let expiresAt: Date?
        package let lastUsedAt: Date?
    }

    /// Every secret starts so, which lets a secret scanner (and a person) recognise one.
    package static let secretPrefix = "sbt_"
    /// The prefix, then 32 random bytes in unpadded base64url.
    static let secretLength = secretPrefix.utf8.count + 43
    /// How often the last use of a token reaches the store, at most.
    static let useRecordInterval: TimeInterval = 60
    /// A token used this close to its expiry is named in the log, at most once a day, so
    /// the shop replaces it before the POS that holds it is refused.
    static let expiryWarningAhead: TimeInterval = 14 * 86_400
    static let expiryWarningInterval: TimeInterval = 86_400
    /// The longest a watch sleeps before looking at the clock again: a clock set forward
    /// (NTP at boot) ends an expired token's connections this late at worst.
    static let longestWatchSleep: Duration = .seconds(10)

    private struct Kept {
        var record: AccessTokenRecord
        var role: Role
        /// When the last use was written to the store.
        var useRecordedAt: Date?
        /// When the log last said the token expires soon.
        var expiryWarnedAt: Date?
    }

    private struct Watch {
        let tokenID: String
        let ended: @Sendable () -> Void
        var timer: Task<Void, Never>?
    }

    private struct State {
        var tokens: [String: Kept] = [:]
        var idsByHash: [[UInt8]: String] = [:]
        var watches: [UInt64: Watch] = [:]
        var nextWatch: UInt64 = 0
    }

    package let limits: Limits
    private let repository: any AccessTokenRepository
    private let logger: Logger
    private let now: @Sendable () -> Date
    private let state = Mutex(State())
    private let tickets = StreamTickets()

    /// Loads the kept tokens. Blocking: for the daemon's start, off the cooperative pool.
    package init(
        repository: any AccessTokenRepository, limits: Limits = Limits(), logger: Logger,
        now: @escaping @Sendable () -> Date = Date.init
    ) throws {
        self.repository = repository
        self.limits = limits
        self.logger = logger
        self.now = now
        let records = try repository.all()
        state.withLock { state in
            for record in records {
                guard let role = Role.named(record.role) else {
                    logger.error("access token with an unknown role left out", metadata: ["token.id": "\(record.id)"])
                    continue
                }
                state.tokens[record.id] = Kept(record: record, role: role, useRecordedAt: record.lastUsedAt)
                state.idsByHash[record.secretHash] = record.id
            }
        }
    }

    // MARK: TokenAuthority

    package func authenticate(secret: String) async -> AuthenticatedToken? {
        guard secret.utf8.count == Self.secretLength, secret.hasPrefix(Self.secretPrefix) else { return nil }
        let hash = Self.hash(secret)
        return await used(at: now()) { $0.idsByHash[hash] }
    }

    package func issueTicket(for tokenID: String) -> (ticket: String, expiresAt: Date)? {
        let time = now()
        let valid = state.withLock { state in state.tokens[tokenID].map { !Self.expired($0.record, at: time) } ?? false }
        return valid ? tickets.issue(for: tokenID, at: time) : nil
    }

    package func redeem(ticket: String) async -> AuthenticatedToken? {
        let time = now()
        guard let tokenID = tickets.redeem(ticket, at: time) else { return nil }
        return await used(at: time) { _ in tokenID }
    }

    /// The valid token `find` names in the state, its use recorded.
    private func used(at time: Date, _ find: (State) -> String?) async -> AuthenticatedToken? {
        let found = state.withLock { state -> (AuthenticatedToken, record: Bool, warn: Bool)? in
            guard let id = find(state), var kept = state.tokens[id], !Self.expired(kept.record, at: time) else {
                return nil
            }
            kept.record.lastUsedAt = time
            let record = kept.useRecordedAt.map { time.timeIntervalSince($0) >= Self.useRecordInterval } ?? true
            if record { kept.useRecordedAt = time }
            let warn = Self.expiresSoon(kept, at: time)
            if warn { kept.expiryWarnedAt = time }
            state.tokens[id] = kept
            let token = AuthenticatedToken(
                id: id, role: kept.role, origins: kept.record.origins, expiresAt: kept.record.expiresAt)
            return (token, record, warn)
        }
        guard let (token, record, warn) = found else { return nil }
        if warn, let expiresAt = token.expiresAt {
            logger.warning(
                "access token expires soon: make a new one for the program that uses it",
                metadata: ["token.id": "\(token.id)", "token.expires_at": "\(EventTime.format(expiresAt))"])
        }
        if record {
            Task { [repository, logger] in
                do {
                    try await repository.recordUse(id: token.id, at: time)
                } catch {
                    logger.warning(
                        "could not record the use of an access token", metadata: ["token.id": "\(token.id)", "error": "\(error)"])
                }
            }
        }
        return token
    }

    package func watch(_ id: String, ended: @escaping @Sendable () -> Void) -> TokenWatch {
        let time = now()
        let watchID = state.withLock { state -> UInt64? in
            guard let kept = state.tokens[id], !Self.expired(kept.record, at: time) else { return nil }
            let watchID = state.nextWatch
            state.nextWatch += 1
            var watch = Watch(tokenID: id, ended: ended)
            if let expiresAt = kept.record.expiresAt {
                watch.timer = Task { [weak self] in await self?.endWhenExpired(watchID, at: expiresAt) }
            }
            state.watches[watchID] = watch
            return watchID
        }
        guard let watchID else {
            // Not from inside `watch`: the caller may hold a lock that `ended` takes.
            Task { ended() }
            return TokenWatch(onCancel: {})
        }
        return TokenWatch(onCancel: { [weak self] in
            self?.state.withLock { $0.watches.removeValue(forKey: watchID) }?.timer?.cancel()
        })
    }

    // MARK: Management (tokens.create, tokens.list, tokens.revoke)

    /// Makes a token; the secret is in the answer and nowhere else. Throws `invalidParams`
    /// naming the field for a bad name, origin or expiry, `overloaded` when the daemon keeps
    /// `limits.tokens` already and none has expired; otherwise the one that expired longest
    /// ago makes room, so expired tokens never stand in the way of a new one.
    package func create(name: String, role: Role, origins: [String], expiresAt: Date?) async throws -> (
        token: Token, secret: String
    ) {
        let time = now()
        let record = AccessTokenRecord(
            id: Self.newID(), name: try Self.checkedName(name, limits: limits), role: role.description,
            origins: try Self.checkedOrigins(origins, limits: limits), secretHash: [], createdAt: time,
            expiresAt: try Self.checkedExpiry(expiresAt, at: time, limits: limits), lastUsedAt: nil)
        let secret = Self.newSecret()
        var kept = record
        kept.secretHash = Self.hash(secret)
        let insertion = try await repository.insert(kept, limit: limits.tokens, now: time)
        if insertion == .full {
            throw ScanBridgeError.overloaded(
                "the daemon keeps at most \(limits.tokens) access tokens; revoke the ones no longer used (tokens.list, tokens.revoke)"
            )
        }
        let ended = state.withLock { state in
            state.tokens[kept.id] = Kept(record: kept, role: role, useRecordedAt: nil)
            state.idsByHash[kept.secretHash] = kept.id
            guard case .savedReplacing(let expired) = insertion else { return [Watch]() }
            return Self.forget(expired, in: &state)
        }
        end(ended)
        if case .savedReplacing(let expired) = insertion {
            logger.info("expired access token deleted to make room", metadata: ["token.id": "\(expired)"])
        }
        logger.info(
            "access token created",
            metadata: ["token.id": "\(kept.id)", "token.name": "\(kept.name)", "token.role": "\(role)"])
        return (Self.token(kept, role: role), secret)
    }

    /// Every token, oldest first; expired ones too, until they are revoked or a new token
    /// takes their place.
    package func list() -> [Token] {
        state.withLock { state in
            state.tokens.values.map { Self.token($0.record, role: $0.role) }
        }
        .sorted { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }
    }

    /// Deletes the token; its watches end at once. False when there is no such token.
    package func revoke(_ id: String) async throws -> Bool {
        guard try await repository.delete(id: id) else { return false }
        let ended = state.withLock { Self.forget(id, in: &$0) }
        tickets.forget(tokenID: id)
        end(ended)
        logger.info("access token revoked", metadata: ["token.id": "\(id)", "connections.closed": "\(ended.count)"])
        return true
    }

    // MARK: Internals

    /// Drops a deleted token from memory; returns its watches, to be ended outside the lock.
    private static func forget(_ id: String, in state: inout State) -> [Watch] {
        if let kept = state.tokens.removeValue(forKey: id) { state.idsByHash.removeValue(forKey: kept.record.secretHash) }
        let watchIDs = state.watches.filter { $0.value.tokenID == id }.map(\.key)
        return watchIDs.compactMap { state.watches.removeValue(forKey: $0) }
    }

    private func end(_ watches: [Watch]) {
        for watch in watches {
            watch.timer?.cancel()
            watch.ended()
        }
    }

    private func endWhenExpired(_ watchID: UInt64, at expiresAt: Date) async {
        while !Task.isCancelled {
            let remaining = expiresAt.timeIntervalSince(now())
            if remaining <= 0 {
                if let watch = state.withLock({ $0.watches.removeValue(forKey: watchID) }) { watch.ended() }
                return
            }
            do {
                try await Task.sleep(for: min(.milliseconds(Int64((remaining * 1000).rounded(.up))), Self.longestWatchSleep))
            } catch {
                return
            }
        }
    }

    private static func expired(_ record: AccessTokenRecord, at time: Date) -> Bool {
        record.expiresAt.map { $0 <= time } ?? false
    }

    private static func token(_ record: AccessTokenRecord, role: Role) -> Token {
        Token(
            id: record.id, name: record.name, role: role, origins: record.origins, createdAt: record.createdAt,
            expiresAt: record.expiresAt, lastUsedAt: record.lastUsedAt)
    }

    // The checks of `tokens.create`'s params are static and internal, not private: FuzzRPCParams
    // holds params to them without a token store.
    static func checkedName(_ name: String, limits: Limits) throws -> String {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else {
            throw ScanBridgeError.invalidParams("name is required: what the token is for", field: "name")
        }
        guard trimmed.count <= limits.nameCharacters, trimmed.utf8.count <= limits.nameBytes else {
            throw ScanBridgeError.invalidParams(
                "name may have at most \(limits.nameCharacters) characters (\(limits.nameBytes) bytes)", field: "name")
        }
        guard !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw ScanBridgeError.invalidParams("name must not contain control characters", field: "name")
        }
        return trimmed
    }

    static func checkedOrigins(_ origins: [String], limits: Limits) throws -> [String] {
        guard origins.count <= limits.origins else {
            throw ScanBridgeError.invalidParams("origins may hold at most \(limits.origins) origins", field: "origins")
        }
        var checked: [String] = []
        for (index, origin) in origins.enumerated() {
            do throws(TokenOrigin.Problem) {
                let normal = try TokenOrigin.normalized(origin)
                if !checked.contains(normal) { checked.append(normal) }
            } catch {
                throw ScanBridgeError.invalidParams(error.reason, field: "origins[\(index)]")
            }
        }
        return checked
    }

    private static func expiresSoon(_ kept: Kept, at time: Date) -> Bool {
        guard let expiresAt = kept.record.expiresAt, expiresAt.timeIntervalSince(time) <= expiryWarningAhead else {
            return false
        }
        return kept.expiryWarnedAt.map { time.timeIntervalSince($0) >= expiryWarningInterval } ?? true
    }

    /// A leaked token stops working in time even if nobody revokes it: none lives past
    /// `limits.maxLifetimeDays`.
    static func checkedExpiry(_ expiresAt: Date?, at time: Date, limits: Limits) throws -> Date? {
        let latest = limits.maxLifetimeDays.map { time.addingTimeInterval(TimeInterval($0) * 86_400) }
        guard let expiresAt else { return latest.map(Self.asStored) }
        if let latest, let days = limits.maxLifetimeDays, expiresAt > latest {
            throw ScanBridgeError.invalidParams(
                "expiresAt \(EventTime.format(expiresAt)) is more than \(days) days away, the longest a token may live (http.token_max_lifetime_days)",
                field: "expiresAt")
        }
        // Held to the future as it is stored: an expiry less than a millisecond away would be
        // stored as now, or before it, and the token made already expired.
        let stored = Self.asStored(expiresAt)
        guard stored > time else {
            throw ScanBridgeError.invalidParams(
                "expiresAt \(EventTime.format(expiresAt)) is not in the future (it is \(EventTime.format(time)) now)",
                field: "expiresAt")
        }
        return stored
    }

    /// As stored, to the millisecond: an expiry read back after a restart is the one answered now.
    private static func asStored(_ time: Date) -> Date {
        Date(timeIntervalSince1970: (time.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
    }

    static func hash(_ secret: String) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        let bytes = Array(secret.utf8)
        _ = SHA256(bytes, bytes.count, &digest)
        return digest
    }

    /// 32 bytes from the kernel's cryptographic RNG (`SystemRandomNumberGenerator` is
    /// getrandom(2) on Linux).
    private static func newSecret() -> String { secretPrefix + randomText() }

    /// 32 random bytes in unpadded base64url: characters a header, a URL and a WebSocket
    /// subprotocol all carry as they are.
    static func randomText() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = Data((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        return bytes.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    private static func newID() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<8).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return "tok_" + bytes.map { String($0, radix: 16).leftPadded(to: 2) }.joined()
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        String(repeating: "0", count: max(0, length - count)) + self
    }
}
