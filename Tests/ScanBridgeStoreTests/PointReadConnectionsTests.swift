import GRDB
import Testing

@testable import ScanBridgeStore

@Suite("PointReadConnections")
struct PointReadConnectionsTests {
    @Test("a point read goes through pread, never a memory map that turns an I/O error into SIGBUS")
    func noMemoryMap() throws {
        let file = try TemporaryDatabase()
        let database = try StoreDatabase(path: file.path)
        let size = try database.pointReads.read { db in try Int.fetchOne(db, sql: "PRAGMA mmap_size") }
        #expect(size == .some(0))
    }
}
