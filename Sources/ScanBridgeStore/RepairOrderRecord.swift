import GRDB
import ScanBridgeCore
import ScanBridgeModel

/// A row of `repair_order`; its devices are rows of `repair_device` (`RepairDeviceRecord`).
struct RepairOrderRecord: FetchableRecord, TableRecord, Sendable {
    static let databaseTableName = "repair_order"

    /// The columns every read selects, in the order `init(row:)` reads them.
    static let columns = "id, reference, status, clientId, clientName, createdAtMs"

    /// Inserts an order, or replaces the one with its id; `createdAtMs` stays the first one.
    static let upsertSQL = """
        INSERT INTO repair_order (\(columns)) VALUES (?, ?, ?, ?, ?, ?)
        ON CONFLICT(id) DO UPDATE SET
            reference = excluded.reference, status = excluded.status,
            clientId = excluded.clientId, clientName = excluded.clientName
        """

    /// The order without its devices.
    var order: RepairOrder

    init(row: Row) {
        order = RepairOrder(
            id: row[0], reference: row[1], status: row[2], clientId: row[3], clientName: row[4],
            createdAt: StoreTime.date(row[5] as Int64))
    }

    /// The order with its devices, in their order. `reference` matches ignoring case (the
    /// column's collation).
    static func fetch(id: String, _ db: Database) throws -> RepairOrder? {
        try withDevices(
            fetchOne(db.cachedStatement(sql: "SELECT \(columns) FROM repair_order WHERE id = ?"), arguments: [id]), db)
    }

    static func fetch(reference: String, _ db: Database) throws -> RepairOrder? {
        try withDevices(
            fetchOne(db.cachedStatement(sql: "SELECT \(columns) FROM repair_order WHERE reference = ?"), arguments: [reference]),
            db)
    }

    private static func withDevices(_ record: RepairOrderRecord?, _ db: Database) throws -> RepairOrder? {
        guard var order = record?.order else { return nil }
        order.devices = try RepairDeviceRecord.fetch(orderId: order.id, db)
        return order
    }
}

/// A row of `repair_device`: a `RepairDevice` and its position in its order.
struct RepairDeviceRecord: FetchableRecord, TableRecord, Sendable {
    static let databaseTableName = "repair_device"

    /// The columns every read selects, in the order `init(row:)` reads them.
    static let columns = "id, orderId, make, model, serial, status"

    var device: RepairDevice

    init(row: Row) {
        device = RepairDevice(id: row[0], orderId: row[1], make: row[2], model: row[3], serial: row[4], status: row[5])
    }

    static func fetch(orderId: String, _ db: Database) throws -> [RepairDevice] {
        try fetchAll(
            db.cachedStatement(sql: "SELECT \(columns) FROM repair_device WHERE orderId = ? ORDER BY position"),
            arguments: [orderId]
        ).map(\.device)
    }

    static func fetch(id: String, _ db: Database) throws -> RepairDevice? {
        try fetchOne(db.cachedStatement(sql: "SELECT \(columns) FROM repair_device WHERE id = ?"), arguments: [id])?.device
    }
}
