import Foundation
import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeStore
import Testing

@Suite("SQLiteOrderRepository")
final class SQLiteOrderRepositoryTests {
    let file: TemporaryDatabase
    let database: StoreDatabase
    let orders: SQLiteOrderRepository

    init() throws {
        file = try TemporaryDatabase()
        database = try StoreDatabase(path: file.path)
        orders = SQLiteOrderRepository(database: database)
    }

    func order(_ id: String, _ reference: String, devices: [String] = [], createdAt: Int64 = 1_000) -> RepairOrder {
        RepairOrder(
            id: id, reference: reference, status: "open", clientId: "cli_1", clientName: "Ada", createdAt: time(createdAt),
            devices: devices.map {
                RepairDevice(id: $0, orderId: id, make: "Apple", model: "iPhone 13", serial: "SN-\($0)", status: "received")
            })
    }

    @Test("an order is stored with its devices in order, and read by id")
    func upsertAndRead() async throws {
        let ticket = order("ord_1", "RM-1001", devices: ["dev_b", "dev_a"])
        #expect(try await orders.upsert([ticket]) == [ticket])
        #expect(try await orders.order(id: "ord_1") == ticket)
        #expect(try await orders.order(id: "ord_2") == nil)
    }

    @Test("upserting an order again replaces its devices and keeps its creation time")
    func replacesDevices() async throws {
        _ = try await orders.upsert([order("ord_1", "RM-1001", devices: ["dev_a", "dev_b"], createdAt: 1_000)])
        var changed = order("ord_1", "RM-1001B", devices: ["dev_c", "dev_a"], createdAt: 9_000)
        changed.status = "in_progress"
        let stored = try await orders.upsert([changed])
        var expected = changed
        expected.createdAt = time(1_000)
        #expect(stored == [expected])
        #expect(try await orders.order(id: "ord_1") == expected)
        #expect(try await orders.device(id: "dev_b") == nil)
        #expect(try rowCount(database, "repair_device") == 2)
        #expect(try rowCount(database, "repair_order") == 1)
        // Devices left out entirely: the order has none.
        _ = try await orders.upsert([order("ord_1", "RM-1001B")])
        #expect(try await orders.order(id: "ord_1")?.devices == [])
    }

    @Test("the printed reference finds its order whatever its case")
    func referenceIgnoresCase() async throws {
        let ticket = order("ord_1", "RM-1001", devices: ["dev_a"])
        _ = try await orders.upsert([ticket])
        #expect(try await orders.order(reference: "RM-1001") == ticket)
        #expect(try await orders.order(reference: "rm-1001") == ticket)
        #expect(try await orders.order(reference: "RM-1002") == nil)
    }

    @Test("a device is found with the order it belongs to")
    func deviceWithOrder() async throws {
        let ticket = order("ord_1", "RM-1001", devices: ["dev_a", "dev_b"])
        _ = try await orders.upsert([ticket, order("ord_2", "RM-1002", devices: ["dev_c"])])
        let found = try await orders.device(id: "dev_b")
        #expect(found?.device == ticket.devices[1])
        #expect(found?.order == ticket)
        #expect(try await orders.device(id: "dev_z") == nil)
    }

    @Test("a reference held by another order refuses the batch, whatever its case")
    func referenceConflict() async throws {
        _ = try await orders.upsert([order("ord_1", "RM-1001")])
        let error = await #expect(throws: ScanBridgeError.self) {
            try await self.orders.upsert([self.order("ord_9", "RM-2000", devices: ["dev_x"]), self.order("ord_2", "rm-1001")])
        }
        #expect(error?.code == .conflict)
        #expect(error?.field == "[1].reference")
        #expect(error?.message.contains("reference rm-1001 already belongs to order ord_1") == true)
        #expect(try await orders.order(id: "ord_9") == nil, "nothing of the batch is stored")
        #expect(try rowCount(database, "repair_device") == 0)
    }

    @Test("the same reference twice in one batch names the earlier order")
    func referenceTwiceInBatch() async throws {
        let error = await #expect(throws: ScanBridgeError.self) {
            try await self.orders.upsert([self.order("ord_1", "RM-1"), self.order("ord_2", "RM-1")])
        }
        #expect(error?.field == "[1].reference")
        #expect(error?.message.contains("order ord_1 ([0]) of this batch") == true)
        #expect(try rowCount(database, "repair_order") == 0)
    }

    @Test("a device id that belongs to another order is a conflict; nothing of the batch is stored")
    func deviceConflict() async throws {
        _ = try await orders.upsert([order("ord_1", "RM-1001", devices: ["dev_a"])])
        let error = await #expect(throws: ScanBridgeError.self) {
            try await self.orders.upsert([
                self.order("ord_2", "RM-1002", devices: ["dev_b"]), self.order("ord_3", "RM-1003", devices: ["dev_a"]),
            ])
        }
        #expect(error?.code == .conflict)
        #expect(error?.field == "[1].devices[0].id")
        #expect(error?.message.contains("device dev_a already belongs to order ord_1") == true)
        #expect(try await orders.order(id: "ord_2") == nil)
        #expect(try await orders.device(id: "dev_a")?.order.id == "ord_1")
    }

    @Test("a device id given twice in one order is a conflict")
    func deviceTwice() async throws {
        let error = await #expect(throws: ScanBridgeError.self) {
            try await self.orders.upsert([self.order("ord_1", "RM-1", devices: ["dev_a", "dev_b", "dev_a"])])
        }
        #expect(error?.code == .conflict)
        #expect(error?.field == "[0].devices[2].id")
        #expect(try rowCount(database, "repair_order") == 0)
    }
}
