import Foundation
import Logging
import PostgresNIO
import ScanBridgeModel

/// The shop's repair orders in PostgreSQL (`scanbridge_orders`, their devices in
/// `scanbridge_order_devices`): the writes every counter makes there, in the transaction its
/// caller holds (`SharedWrites`), and the reads its replica is kept from.
struct SharedOrders: Sendable {
    let logger: Logger

    static let orderRecordType = """
        id text, reference text, status text, client_id text, client_name text, created_at_ms bigint
        """
    static let deviceRecordType = """
        id text, order_id text, position integer, make text, model text, serial text, status text
        """

    /// Writes each order with exactly its devices, but those in `keepingDevices`, which keep
    /// the shop's; an order keeps the `created_at` it was first stored with. With
    /// `keepingTheShops`, an order the shop has under its id stays as it is (a counter's
    /// move); returns the ids written.
    @discardableResult
    func upsert(
        _ orders: [RepairOrder], keepingDevices: Set<String> = [], keepingTheShops: Bool = false,
        on connection: PostgresConnection
    ) async throws -> [String] {
        guard !orders.isEmpty else { return [] }
        let page = orders.lastOfEach(\.id)
        let onConflict =
            keepingTheShops
            ? "DO NOTHING"
            : """
            DO UPDATE SET reference = excluded.reference, status = excluded.status,
                client_id = excluded.client_id, client_name = excluded.client_name
            """
        let written = try await connection.query(
            """
            INSERT INTO scanbridge_orders (id, reference, status, client_id, client_name, created_at)
            SELECT id, reference, status, client_id, client_name, to_timestamp(created_at_ms / 1000.0)
            FROM jsonb_to_recordset(\(try Self.ordersJSON(page))::jsonb) AS o(\(unescaped: Self.orderRecordType))
            ON CONFLICT (id) \(unescaped: onConflict) RETURNING id
            """, logger: logger
        ).decode(String.self).collectAll()
        let replaced = Set(written).subtracting(keepingDevices)
        let devices = page.filter { replaced.contains($0.id) }.flatMap { order in
            order.devices.enumerated().map { DeviceJSON(order: order.id, position: $0.offset, device: $0.element) }
        }
        try await connection.query(
            "DELETE FROM scanbridge_order_devices WHERE order_id = ANY(\(Array(replaced)))", logger: logger)
        if !devices.isEmpty {
            try await connection.query(
                """
                INSERT INTO scanbridge_order_devices (id, order_id, position, make, model, serial, status)
                SELECT id, order_id, position, make, model, serial, status
                FROM jsonb_to_recordset(\(try RecordsetJSON.encode(devices))::jsonb) AS d(\(unescaped: Self.deviceRecordType))
                """, logger: logger)
        }
        return written
    }

    /// The orders of these ids that exist, with their devices in order. An order no client
    /// could have given here is refused, the longest of them (or with too many devices)
    /// before they are read (`ShopRowBounds`).
    func orders(ids: [String], on connection: PostgresConnection) async throws -> ShopRows<RepairOrder> {
        let (bounds, deviceBounds) = (ShopRowBounds.orders, ShopRowBounds.devices)
        var read = ShopRows<RepairOrder>()
        var orders: [String: RepairOrder] = [:]
        for try await (id, reference, status, clientId, clientName, createdAt) in try await connection.query(
            """
            SELECT id, reference, status, client_id, client_name, created_at FROM scanbridge_orders
            WHERE id = ANY(\(ids)) AND \(unescaped: bounds.fits)
            """, logger: logger
        ).decode((String, String, String, String?, String?, Date).self) {
            orders[id] = RepairOrder(
                id: id, reference: reference, status: status, clientId: clientId, clientName: clientName,
                createdAt: createdAt)
        }
        read.refused += try await bounds.refused(
            among: Set(ids).subtracting(orders.keys), on: connection, logger: logger)
        for try await (id, count, fit) in try await connection.query(
            """
            SELECT order_id, count(*)::bigint, bool_and(\(unescaped: deviceBounds.fits)) FROM scanbridge_order_devices
            WHERE order_id = ANY(\(Array(orders.keys))) GROUP BY order_id
            HAVING count(*) > \(RepairOrder.maxDevices) OR NOT bool_and(\(unescaped: deviceBounds.fits))
            """, logger: logger
        ).decode((String, Int64, Bool).self) {
            orders[id] = nil
            read.refused.append(
                RefusedRow(
                    table: bounds.table, key: id,
                    reason: fit
                        ? "it has \(count) devices, more than \(RepairOrder.maxDevices)"
                        : "one of its devices has a field longer than its bound"))
        }
        for try await (id, orderId, make, model, serial, status) in try await connection.query(
            """
            SELECT id, order_id, make, model, serial, status FROM scanbridge_order_devices
            WHERE order_id = ANY(\(Array(orders.keys))) ORDER BY order_id, position
            """, logger: logger
        ).decode((String, String, String?, String?, String?, String).self) {
            orders[orderId]?.devices.append(
                RepairDevice(id: id, orderId: orderId, make: make, model: model, serial: serial, status: status))
        }
        for id in ids {
            guard let order = orders[id] else { continue }
            if let problem = order.inputProblem {
                read.refused.append(RefusedRow(table: bounds.table, key: id, reason: problem))
            } else {
                read.rows.append(order)
            }
        }
        return read
    }

    static func ordersJSON(_ orders: [RepairOrder]) throws -> String {
        try RecordsetJSON.encode(
            orders.map { order in
                OrderJSON(
                    id: order.id, reference: order.reference, status: order.status, clientId: order.clientId,
                    clientName: order.clientName,
                    createdAtMs: RecordsetJSON.milliseconds(order.createdAt))
            })
    }

    private struct OrderJSON: Encodable {
        let id, reference, status: String
        let clientId, clientName: String?
        let createdAtMs: Int64
    }

    private struct DeviceJSON: Encodable {
        let id, orderId: String
        let position: Int
        let make, model, serial: String?
        let status: String

        init(order: String, position: Int, device: RepairDevice) {
            (id, orderId, self.position) = (device.id, order, position)
            (make, model, serial, status) = (device.make, device.model, device.serial, device.status)
        }
    }
}
