public import ScanBridgeModel

/// Repair orders and their devices.
public protocol OrderRepository: Sendable {
    func order(id: String) async throws -> RepairOrder?
    /// By printed reference, ignoring case (`rm-1001` finds `RM-1001`).
    func order(reference: String) async throws -> RepairOrder?
    /// A device and the order it belongs to.
    func device(id: String) async throws -> (device: RepairDevice, order: RepairOrder)?
    /// Inserts or replaces each order by id with exactly the devices given, all in one
    /// transaction; returns them as stored. The orders whose ids are in `keepingDevices` keep
    /// the devices stored with them, as the transaction finds them (their `devices` are not
    /// read). Throws `conflict` when a reference belongs to another order or a device id to
    /// another order's device.
    func upsert(_ orders: [RepairOrder], keepingDevices: Set<String>) async throws -> [RepairOrder]
}

extension OrderRepository {
    /// Each order with exactly the devices given.
    public func upsert(_ orders: [RepairOrder]) async throws -> [RepairOrder] {
        try await upsert(orders, keepingDevices: [])
    }
}
