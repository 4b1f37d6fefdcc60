import Foundation
import GRDB
import ScanBridgeCore
import Testing

@testable import ScanBridgeStore

/// The gateway's access tokens on a real file: kept across openings, bounded, deleted on revoke,
/// and a database from before them migrated.
@Suite("Access token store")
struct SQLiteAccessTokensTests {
    static func record(_ id: String, hashByte: UInt8, expiresAt: Date? = nil) -> AccessTokenRecord {
        AccessTokenRecord(
            id: id, name: "web POS \(id)", role: "operator", origins: ["https://pos.example", "http://localhost:3000"],
            secretHash: [UInt8](repeating: hashByte, count: 32), createdAt: Date(timeIntervalSince1970: 1_800_000_000.123),
            expiresAt: expiresAt, lastUsedAt: nil)
    }

    static let now = Date(timeIntervalSince1970: 1_800_000_100)

    @Test func anExpiredTokenMakesRoomAtTheLimitTheOldestFirst() async throws {
        let file = try TemporaryDatabase()
        let tokens = SQLiteAccessTokens(database: try StoreDatabase(path: file.path))
        let (soon, sooner) = (Self.now.addingTimeInterval(60), Self.now.addingTimeInterval(30))
        #expect(try await tokens.insert(Self.record("tok_a", hashByte: 1, expiresAt: soon), limit: 3, now: Self.now) == .saved)
        #expect(try await tokens.insert(Self.record("tok_b", hashByte: 2), limit: 3, now: Self.now) == .saved)
        #expect(try await tokens.insert(Self.record("tok_c", hashByte: 3, expiresAt: sooner), limit: 3, now: Self.now) == .saved)
        #expect(
            try await tokens.insert(Self.record("tok_d", hashByte: 4), limit: 3, now: Self.now) == .full,
            "none has expired yet")
        let later = Self.now.addingTimeInterval(120)
        #expect(try await tokens.insert(Self.record("tok_e", hashByte: 5), limit: 3, now: later) == .savedReplacing(id: "tok_c"))
        #expect(try await tokens.insert(Self.record("tok_f", hashByte: 6), limit: 3, now: later) == .savedReplacing(id: "tok_a"))
        #expect(try await tokens.insert(Self.record("tok_g", hashByte: 7), limit: 3, now: later) == .full)
        #expect(try tokens.all().map(\.id).sorted() == ["tok_b", "tok_e", "tok_f"])
    }

    @Test func tokensAreKeptAcrossOpeningsAndDeletedOnRevoke() async throws {
        let file = try TemporaryDatabase()
        let expiry = Date(timeIntervalSince1970: 1_900_000_000.456)
        do {
            let tokens = SQLiteAccessTokens(database: try StoreDatabase(path: file.path))
            #expect(try tokens.all().isEmpty)
            #expect(
                try await tokens.insert(Self.record("tok_a", hashByte: 1, expiresAt: expiry), limit: 10, now: Self.now) == .saved)
            #expect(try await tokens.insert(Self.record("tok_b", hashByte: 2), limit: 10, now: Self.now) == .saved)
            try await tokens.recordUse(id: "tok_a", at: Date(timeIntervalSince1970: 1_850_000_000.789))
        }
        let reopened = SQLiteAccessTokens(database: try StoreDatabase(path: file.path))
        let kept = try reopened.all()
        #expect(kept.map(\.id) == ["tok_a", "tok_b"])
        var expected = Self.record("tok_a", hashByte: 1, expiresAt: expiry)
        expected.lastUsedAt = Date(timeIntervalSince1970: 1_850_000_000.789)
        #expect(kept.first?.origins == expected.origins && kept.first?.secretHash == expected.secretHash)
        #expect(kept.first?.role == "operator" && kept.first?.name == "web POS tok_a")
        #expect(kept.first.map { abs($0.expiresAt!.timeIntervalSince(expiry)) < 0.001 } == true)
        #expect(kept.first.map { abs($0.lastUsedAt!.timeIntervalSince(expected.lastUsedAt!)) < 0.001 } == true)
        #expect(kept.last?.expiresAt == nil && kept.last?.lastUsedAt == nil)

        #expect(try await reopened.delete(id: "tok_a"))
        #expect(try await reopened.delete(id: "tok_a") == false, "a second revoke finds nothing")
        #expect(try reopened.all().map(\.id) == ["tok_b"])
    }

    @Test func theLimitAndTheSchemaHold() async throws {
        let file = try TemporaryDatabase()
        let tokens = SQLiteAccessTokens(database: try StoreDatabase(path: file.path))
        #expect(try await tokens.insert(Self.record("tok_a", hashByte: 1), limit: 2, now: Self.now) == .saved)
        #expect(try await tokens.insert(Self.record("tok_b", hashByte: 2), limit: 2, now: Self.now) == .saved)
        #expect(try await tokens.insert(Self.record("tok_c", hashByte: 3), limit: 2, now: Self.now) == .full)
        await #expect(throws: (any Error).self, "one secret hash names one token") {
            _ = try await tokens.insert(Self.record("tok_d", hashByte: 1), limit: 10, now: Self.now)
        }
        var badRole = Self.record("tok_e", hashByte: 5)
        badRole.role = "root"
        await #expect(throws: (any Error).self, "the schema takes the protocol's roles only") {
            _ = try await tokens.insert(badRole, limit: 10, now: Self.now)
        }
        var shortHash = Self.record("tok_f", hashByte: 6)
        shortHash.secretHash = [6]
        await #expect(throws: (any Error).self, "a hash is SHA-256's 32 bytes") {
            _ = try await tokens.insert(shortHash, limit: 10, now: Self.now)
        }
        #expect(try tokens.all().map(\.id) == ["tok_a", "tok_b"])
    }

    @Test func aDatabaseFromBeforeTheTokensGetsTheirTable() throws {
        let file = try TemporaryDatabase()
        let pool = try DatabasePool(path: file.path)
        try StoreDatabase.migrator.migrate(pool, upTo: "v4-journal-without-kind-index")
        #expect(try pool.read { try $0.tableExists("access_token") } == false)
        let database = try StoreDatabase(path: file.path)
        #expect(try tableExists(database, "access_token"))
        #expect(try SQLiteAccessTokens(database: database).all().isEmpty)
    }
}
