import ScanBridgeCore
import ScanBridgeModel

/// Repair orders with a shared store: read from this counter's replica, so a scan never
/// waits on the network; written to the shop's store in one transaction, then read back here
/// once the replica has followed.
struct SharedOrderRepository: OrderRepository {
    let local: any OrderRepository
    let writes: SharedWrites
    let shared: SharedOrders

    func order(id: String) async throws -> RepairOrder? { try await local.order(id: id) }

    func order(reference: String) async throws -> RepairOrder? { try await local.order(reference: reference) }

    func device(id: String) async throws -> (device: RepairDevice, order: RepairOrder)? {
        try await local.device(id: id)
    }

    func upsert(_ orders: [RepairOrder], keepingDevices: Set<String>) async throws -> [RepairOrder] {
        guard !orders.isEmpty else { return [] }
        let ids = orders.map(\.id)
        return try await writes.run(
            "save the repair orders", within: .seconds(60),
            locate: { constraint, key in
                if constraint.contains("reference"),
                    let index = orders.lastIndex(where: { $0.reference.lowercased() == key })
                {
                    return "[\(index)].reference"
                }
                for (index, order) in orders.enumerated().reversed() {
                    if let position = order.devices.firstIndex(where: { $0.id == key }) {
                        return "[\(index)].devices[\(position)].id"
                    }
                }
                return nil
            }
        ) { [shared] _, connection in
            try await shared.upsert(orders, keepingDevices: keepingDevices, on: connection)
            let stored = Dictionary(
                try await shared.orders(ids: ids, on: connection).rows.map { ($0.id, $0) }, uniquingKeysWith: { $1 })
            return ids.compactMap { stored[$0] }
        }
    }
}
