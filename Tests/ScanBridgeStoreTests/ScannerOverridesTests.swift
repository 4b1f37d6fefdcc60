import GRDB
import Testing

@testable import ScanBridgeStore

/// The operator's scanner claims and releases on a real file: the latest choice per key,
/// kept when the database is opened again, a database from before them migrated.
@Suite("Scanner overrides")
struct ScannerOverridesTests {
    @Test func theLatestChoicePerKeyIsKept() async throws {
        let file = try TemporaryDatabase()
        do {
            let overrides = SQLiteScannerOverrides(database: try StoreDatabase(path: file.path))
            #expect(try overrides.all().isEmpty)
            try await overrides.save("claim", for: "0627:0001")
            try await overrides.save("claim", for: "evdev:0c2e:0b81:s1")
            try await overrides.save("release", for: "0627:0001")
        }
        let reopened = SQLiteScannerOverrides(database: try StoreDatabase(path: file.path))
        #expect(try reopened.all() == ["0627:0001": "release", "evdev:0c2e:0b81:s1": "claim"])
        await #expect(throws: (any Error).self, "the schema takes claim or release only") {
            try await reopened.save("maybe", for: "0627:0001")
        }
        #expect(try reopened.all()["0627:0001"] == "release")
    }

    @Test func aDatabaseFromBeforeTheOverridesGetsTheirTable() throws {
        let file = try TemporaryDatabase()
        let pool = try DatabasePool(path: file.path)
        try StoreDatabase.migrator.migrate(pool, upTo: "v2-domain")
        #expect(try pool.read { try $0.tableExists("scanner_override") } == false)
        let database = try StoreDatabase(path: file.path)
        #expect(try tableExists(database, "scanner_override"))
        #expect(try SQLiteScannerOverrides(database: database).all().isEmpty)
    }
}
