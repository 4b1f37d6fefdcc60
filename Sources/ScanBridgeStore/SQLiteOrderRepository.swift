import GRDB
import ScanBridgeCore
package import ScanBridgeModel

/// Repair orders in `repair_order`, their devices in `repair_device`.
package final class SQLiteOrderRepository: OrderRepository {
    let database: StoreDatabase

    package init(database: StoreDatabase) {
        self.database = database
    }

    package func order(id: String) async throws -> RepairOrder? {
        try await database.read("read order \(id)") { db in try RepairOrderRecord.fetch(id: id, db) }
    }

    package func order(reference: String) async throws -> RepairOrder? {
        try await database.read("read order \(reference)") { db in try RepairOrderRecord.fetch(reference: reference, db) }
    }

    package func device(id: String) async throws -> (device: RepairDevice, order: RepairOrder)? {
        let found = try await database.read("read device \(id)") { db -> DeviceInOrder? in
            guard let device = try RepairDeviceRecord.fetch(id: id, db),
                let order = try RepairOrderRecord.fetch(id: device.orderId, db)
            else { return nil }
            return DeviceInOrder(device: device, order: order)
        }
        return found.map { ($0.device, $0.order) }
    }

    /// Each order keeps the `createdAt` it was first stored with: an order is created once,
    /// and a client that leaves the time out of an update must not move it. Devices are
    /// stored under the order they are given in, whatever their `orderId` says. The checks
    /// run in batch order: a device may move to another order only after the batch (or an
    /// earlier one) has taken it off its first order.
    package func upsert(_ orders: [RepairOrder], keepingDevices: Set<String>) async throws -> [RepairOrder] {
        guard !orders.isEmpty else { return [] }
        return try await database.write("save the orders") { db in
            var orders = orders
            var stored: [RepairOrder] = []
            stored.reserveCapacity(orders.count)
            for index in orders.indices {
                if keepingDevices.contains(orders[index].id) {
                    orders[index].devices = try RepairDeviceRecord.fetch(orderId: orders[index].id, db)
                }
                try Self.upsert(orders[index], at: index, of: orders, db)
                guard let order = try RepairOrderRecord.fetch(id: orders[index].id, db) else {
                    throw ScanBridgeError(.internalError, "order \(orders[index].id) was saved but cannot be read back")
                }
                stored.append(order)
            }
            return stored
        }
    }

    /// Writes `orders[index]` with exactly its devices. Call inside a write transaction: the
    /// checks see the batch's earlier orders.
    static func upsert(_ order: RepairOrder, at index: Int, of orders: [RepairOrder], _ db: Database) throws {
        if let owner = try String.fetchOne(
            db.cachedStatement(sql: "SELECT id FROM repair_order WHERE reference = ? AND id <> ?"),
            arguments: [order.reference, order.id])
        {
            let holder =
                orders[..<index].lastIndex { $0.id == owner }.map { "order \(owner) ([\($0)]) of this batch" }
                ?? "order \(owner)"
            throw ScanBridgeError(
                .conflict,
                "reference \(order.reference) already belongs to \(holder) (references ignore case); "
                    + "give order \(order.id) another reference, or use the id \(owner) to update that order",
                field: "[\(index)].reference")
        }
        try db.cachedStatement(sql: RepairOrderRecord.upsertSQL).execute(arguments: [
            order.id, order.reference, order.status, order.clientId, order.clientName, StoreTime.milliseconds(order.createdAt),
        ])
        try db.cachedStatement(sql: "DELETE FROM repair_device WHERE orderId = ?").execute(arguments: [order.id])
        let ownerOf = try db.cachedStatement(sql: "SELECT orderId FROM repair_device WHERE id = ?")
        let insert = try db.cachedStatement(
            sql: """
                INSERT INTO repair_device (id, orderId, position, make, model, serial, status) VALUES (?, ?, ?, ?, ?, ?, ?)
                """)
        for (position, device) in order.devices.enumerated() {
            let field = "[\(index)].devices[\(position)].id"
            // This order's own devices were just deleted: any owner left is another order.
            if let owner = try String.fetchOne(ownerOf, arguments: [device.id]) {
                let message =
                    owner == order.id
                    ? "device \(device.id) is given twice in order \(order.id); give each device its own id"
                    : "device \(device.id) already belongs to order \(owner); a device label names one device: "
                        + "remove it from order \(owner) first, or give this device another id"
                throw ScanBridgeError(.conflict, message, field: field)
            }
            try insert.execute(arguments: [
                device.id, order.id, position, device.make, device.model, device.serial, device.status,
            ])
        }
    }
}

/// A device and its order, as one Sendable value out of a read.
private struct DeviceInOrder: Sendable {
    var device: RepairDevice
    var order: RepairOrder
}
