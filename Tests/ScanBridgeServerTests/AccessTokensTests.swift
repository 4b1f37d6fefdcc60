import Foundation
import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeRPC
import ScanBridgeTesting
import Synchronization
import Testing

@testable import ScanBridgeServer

/// The gateway's access tokens: which secrets authenticate, when watches end, what is
/// written and what is bounded.
@Suite("Access tokens")
struct AccessTokensTests {
    let repository = MemoryAccessTokens()
    let clock = ManualNow()
    let log = CapturedLog()

    func tokens(limits: AccessTokens.Limits = AccessTokens.Limits()) throws -> AccessTokens {
        try AccessTokens(repository: repository, limits: limits, logger: log.logger, now: clock.now)
    }

    @Test func aCreatedSecretAuthenticatesWithItsRoleAndOrigins() async throws {
        let tokens = try tokens()
        let expiry = clock.now().addingTimeInterval(3600)
        let (token, secret) = try await tokens.create(
            name: " web POS ", role: .operator, origins: ["HTTPS://POS.example:443", "http://localhost:3000"],
            expiresAt: expiry)
        #expect(token.name == "web POS" && token.role == .operator && token.lastUsedAt == nil)
        #expect(token.origins == ["https://pos.example", "http://localhost:3000"])
        let found = await tokens.authenticate(secret: secret)
        #expect(found == AuthenticatedToken(id: token.id, role: .operator, origins: token.origins, expiresAt: expiry))
        #expect(tokens.list().first?.lastUsedAt == clock.now())
    }

    @Test func secretsAreRandomAndOnlyTheirHashIsStored() async throws {
        let tokens = try tokens()
        var secrets = Set<String>()
        for index in 0..<20 {
            let (_, secret) = try await tokens.create(name: "till \(index)", role: .reader, origins: [], expiresAt: nil)
            #expect(secret.hasPrefix("sbt_") && secret.utf8.count == 47, "\(secret)")
            let alphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
            #expect(secret.dropFirst(4).allSatisfy(alphabet.contains), "\(secret) is base64url")
            secrets.insert(secret)
        }
        #expect(secrets.count == 20)
        let stored = repository.state.withLock { $0.tokens }
        #expect(Set(stored.map(\.id)).count == 20)
        for secret in secrets {
            #expect(stored.contains { $0.secretHash == AccessTokens.hash(secret) })
        }
        let abc = AccessTokens.hash("abc").map {
            String($0, radix: 16).count == 1 ? "0\(String($0, radix: 16))" : String($0, radix: 16)
        }
        #expect(abc.joined() == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "SHA-256")
        let everything = "\(stored)"
        for secret in secrets { #expect(!everything.contains(secret.dropFirst(4))) }
    }

    @Test(arguments: [
        "", "sbt_", "Bearer sbt_x", String(repeating: "a", count: 47), "sbt_" + String(repeating: "A", count: 43),
        "sbt_" + String(repeating: "A", count: 10_000),
    ])
    func anUnknownSecretDoesNot(secret: String) async throws {
        let tokens = try tokens()
        _ = try await tokens.create(name: "web POS", role: .admin, origins: [], expiresAt: nil)
        #expect(await tokens.authenticate(secret: secret) == nil)
    }

    @Test func anExpiredTokenDoesNotButIsStillListed() async throws {
        let tokens = try tokens()
        let (token, secret) = try await tokens.create(
            name: "a day", role: .reader, origins: [], expiresAt: clock.now().addingTimeInterval(60))
        #expect(await tokens.authenticate(secret: secret) != nil)
        clock.advance(by: 60)
        #expect(await tokens.authenticate(secret: secret) == nil)
        #expect(tokens.list().map(\.id) == [token.id])
    }

    /// None lives past the longest lifetime, a year unless the shop says otherwise: one made
    /// without an expiry gets it, and a later expiry is refused.
    @Test func noTokenLivesPastTheLongestLifetime() async throws {
        #expect(AccessTokens.Limits().maxLifetimeDays == 365)
        let tokens = try tokens()
        let (token, secret) = try await tokens.create(name: "no expiry", role: .reader, origins: [], expiresAt: nil)
        let year = TimeInterval(365 * 86_400)
        #expect(token.expiresAt.map { abs($0.timeIntervalSince(clock.now().addingTimeInterval(year))) < 1 } == true)
        await #expect(throws: ScanBridgeError.self) {
            _ = try await tokens.create(
                name: "forever", role: .reader, origins: [], expiresAt: clock.now().addingTimeInterval(year + 60))
        }
        clock.advance(by: year)
        #expect(await tokens.authenticate(secret: secret) == nil)
    }

    @Test func aShopMayLetTokensLiveUntilRevoked() async throws {
        var limits = AccessTokens.Limits()
        limits.maxLifetimeDays = nil
        let (token, _) = try await tokens(limits: limits).create(name: "kiosk", role: .reader, origins: [], expiresAt: nil)
        #expect(token.expiresAt == nil)
    }

    /// The log says so while there is time to replace the token, once a day, not at each use.
    @Test func aTokenUsedCloseToItsExpiryIsNamedInTheLogOnceADay() async throws {
        let tokens = try tokens()
        let (token, secret) = try await tokens.create(
            name: "till", role: .reader, origins: [], expiresAt: clock.now().addingTimeInterval(20 * 86_400))
        let warnings = { log.lines.withLock { $0.filter { $0.contains("expires soon") && $0.contains(token.id) }.count } }
        _ = await tokens.authenticate(secret: secret)
        #expect(warnings() == 0)
        clock.advance(by: 7 * 86_400)
        _ = await tokens.authenticate(secret: secret)
        clock.advance(by: 3600)
        _ = await tokens.authenticate(secret: secret)
        #expect(warnings() == 1)
        clock.advance(by: 86_400)
        _ = await tokens.authenticate(secret: secret)
        #expect(warnings() == 2)
    }

    @Test func aRevokedTokenDoesNotAndIsGoneFromTheStore() async throws {
        let tokens = try tokens()
        let (token, secret) = try await tokens.create(name: "web POS", role: .reader, origins: [], expiresAt: nil)
        let (kept, keptSecret) = try await tokens.create(name: "other", role: .reader, origins: [], expiresAt: nil)
        #expect(try await tokens.revoke(token.id))
        #expect(await tokens.authenticate(secret: secret) == nil)
        #expect(await tokens.authenticate(secret: keptSecret)?.id == kept.id)
        #expect(try await tokens.revoke(token.id) == false)
        #expect(tokens.list().map(\.id) == [kept.id])
        #expect(repository.state.withLock { $0.tokens.map(\.id) } == [kept.id])
    }

    @Test func tokensOutliveARestart() async throws {
        let (token, secret) = try await tokens().create(name: "web POS", role: .admin, origins: [], expiresAt: nil)
        let restarted = try tokens()
        #expect(await restarted.authenticate(secret: secret)?.id == token.id)
    }

    @Test func theLastUseReachesTheStoreAtMostOnceAMinute() async throws {
        let tokens = try tokens()
        let (token, secret) = try await tokens.create(name: "web POS", role: .reader, origins: [], expiresAt: nil)
        for _ in 0..<5 {
            _ = await tokens.authenticate(secret: secret)
            clock.advance(by: 10)
        }
        let used = clock.now()
        _ = await tokens.authenticate(secret: secret)
        #expect(tokens.list().first?.lastUsedAt == used, "the list shows every use")
        try await waitUntil("the first use is recorded") { repository.state.withLock { $0.usesRecorded } == 1 }
        clock.advance(by: 10)
        _ = await tokens.authenticate(secret: secret)
        try await waitUntil("a use a minute later is recorded") { repository.state.withLock { $0.usesRecorded } == 2 }
        #expect(repository.state.withLock { $0.tokens.first { $0.id == token.id }?.lastUsedAt } == clock.now())
    }

    @Test func aWatchEndsAtOnceOnRevokeAndOnlyOnce() async throws {
        let tokens = try tokens()
        let (token, _) = try await tokens.create(name: "web POS", role: .reader, origins: [], expiresAt: nil)
        let ends = Mutex(0)
        let cancelled = Mutex(0)
        let watch = tokens.watch(token.id) { ends.withLock { $0 += 1 } }
        let other = tokens.watch(token.id) { cancelled.withLock { $0 += 1 } }
        other.cancel()
        #expect(try await tokens.revoke(token.id))
        #expect(ends.withLock { $0 } == 1)
        #expect(cancelled.withLock { $0 } == 0, "a cancelled watch is not called")
        watch.cancel()
        watch.cancel()
        #expect(ends.withLock { $0 } == 1)
    }

    @Test func aWatchOfAnUnknownOrExpiredTokenEndsAtOnce() async throws {
        let tokens = try tokens()
        let (token, _) = try await tokens.create(
            name: "web POS", role: .reader, origins: [], expiresAt: clock.now().addingTimeInterval(5))
        let ends = Mutex(0)
        _ = tokens.watch("tok_unknown") { ends.withLock { $0 += 1 } }
        clock.advance(by: 5)
        _ = tokens.watch(token.id) { ends.withLock { $0 += 1 } }
        try await waitUntil("both watches ended") { ends.withLock { $0 } == 2 }
    }

    @Test func aWatchEndsWhenItsTokenExpires() async throws {
        let tokens = try AccessTokens(repository: repository, logger: log.logger)
        let (token, secret) = try await tokens.create(
            name: "short", role: .reader, origins: [], expiresAt: Date().addingTimeInterval(0.3))
        let (ended, continuation) = AsyncStream<Void>.makeStream()
        let watch = tokens.watch(token.id) { continuation.yield() }
        defer { watch.cancel() }
        try await within("the watch's end", timeout: .seconds(20)) {
            var iterator = ended.makeAsyncIterator()
            _ = await iterator.next()
        }
        #expect(await tokens.authenticate(secret: secret) == nil)
    }

    @Test func theBoundsHold() async throws {
        var limits = AccessTokens.Limits()
        limits.tokens = 2
        let tokens = try tokens(limits: limits)
        func field(_ body: () async throws -> Void) async -> String? {
            do {
                try await body()
            } catch let error as ScanBridgeError {
                #expect(error.code == .invalidParams, "\(error)")
                return error.field
            } catch {}
            return nil
        }
        let now = clock.now()
        #expect(await field { _ = try await tokens.create(name: "  ", role: .reader, origins: [], expiresAt: nil) } == "name")
        let long = String(repeating: "é", count: 101)
        #expect(await field { _ = try await tokens.create(name: long, role: .reader, origins: [], expiresAt: nil) } == "name")
        let wide = String(repeating: "😀", count: 70)
        #expect(
            await field { _ = try await tokens.create(name: wide, role: .reader, origins: [], expiresAt: nil) } == "name",
            "70 characters but 280 bytes")
        #expect(await field { _ = try await tokens.create(name: "a\u{7}", role: .reader, origins: [], expiresAt: nil) } == "name")
        let many = (0..<17).map { "https://pos\($0).example" }
        #expect(await field { _ = try await tokens.create(name: "a", role: .reader, origins: many, expiresAt: nil) } == "origins")
        #expect(
            await field {
                _ = try await tokens.create(
                    name: "a", role: .reader, origins: ["https://a.example", "https://b.example/"], expiresAt: nil)
            } == "origins[1]")
        #expect(await field { _ = try await tokens.create(name: "a", role: .reader, origins: [], expiresAt: now) } == "expiresAt")
        // Stored to the millisecond, it would be now: a token expired as it is made (found by FuzzRPCParams).
        let subMillisecond = now.addingTimeInterval(0.0004)
        #expect(
            await field { _ = try await tokens.create(name: "a", role: .reader, origins: [], expiresAt: subMillisecond) }
                == "expiresAt")
        #expect(repository.state.withLock { $0.tokens.isEmpty }, "nothing refused was stored")

        _ = try await tokens.create(name: "one", role: .reader, origins: [], expiresAt: nil)
        _ = try await tokens.create(name: "two", role: .reader, origins: [], expiresAt: nil)
        await #expect(throws: ScanBridgeError.self) {
            _ = try await tokens.create(name: "three", role: .reader, origins: [], expiresAt: nil)
        }
        #expect(tokens.list().count == 2)
    }

    @Test func anExpiredTokenMakesRoomForANewOne() async throws {
        var limits = AccessTokens.Limits()
        limits.tokens = 2
        let tokens = try tokens(limits: limits)
        let (short, _) = try await tokens.create(
            name: "an hour", role: .reader, origins: [], expiresAt: clock.now().addingTimeInterval(3600))
        _ = try await tokens.create(name: "kept", role: .reader, origins: [], expiresAt: nil)
        await #expect(throws: ScanBridgeError.self, "both still valid") {
            _ = try await tokens.create(name: "third", role: .reader, origins: [], expiresAt: nil)
        }
        clock.advance(by: 3601)
        _ = try await tokens.create(name: "third", role: .reader, origins: [], expiresAt: nil)
        #expect(tokens.list().map(\.name) == ["kept", "third"])
        #expect(!tokens.list().contains { $0.id == short.id })
        #expect(log.text.contains("expired access token deleted to make room"))
    }

    @Test func noSecretIsLogged() async throws {
        let tokens = try tokens()
        let (token, secret) = try await tokens.create(name: "web POS", role: .admin, origins: [], expiresAt: nil)
        _ = await tokens.authenticate(secret: secret)
        _ = await tokens.authenticate(secret: "sbt_" + String(secret.dropFirst(4).reversed()))
        _ = try await tokens.revoke(token.id)
        _ = await tokens.authenticate(secret: secret)
        #expect(log.text.contains(token.id), "the log names tokens by id: \(log.text)")
        #expect(!log.text.contains(secret.dropFirst(4).prefix(16)))
    }
}

/// Waits for `condition`, failing after `timeout` rather than hanging.
func waitUntil(_ what: String, timeout: Duration = .seconds(20), _ condition: @escaping @Sendable () -> Bool) async throws {
    try await within(what, timeout: timeout) {
        while !condition() { try await Task.sleep(for: .milliseconds(5)) }
    }
}
