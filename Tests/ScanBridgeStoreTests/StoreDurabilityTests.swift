import ScanBridgeStore
import Testing

@Suite("StoreDatabase durability")
struct StoreDurabilityTests {
    /// Opening a pool in WAL mode sets `synchronous = NORMAL` on its writer after the
    /// connection was prepared: the setting the journal asked for must be the one in force.
    @Test("the writer syncs as journal.durability says", arguments: [(StoreDatabase.Durability.full, 2), (.normal, 1)])
    func writerSynchronous(durability: StoreDatabase.Durability, pragma: Int) throws {
        let database = try TemporaryDatabase()
        let store = try StoreDatabase(path: database.path, durability: durability)
        #expect(try store.writerSynchronous() == pragma)
    }
}
