import Foundation
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeRPC
import ScanBridgeTesting
import Testing

/// Repair orders and the `order-lookup` handler, through the real daemon's socket.
@Suite("Orders end to end", .heavy, .timeLimit(.minutes(5)))
struct OrdersEndToEndTests {
    static let order: JSONValue = [
        "id": "ord_1001", "reference": "RM-1001", "status": "in_progress", "clientId": "cli_7",
        "clientName": "Ada Lovelace",
        "devices": [["id": "dev_55", "make": "Apple", "model": "iPhone 13", "serial": "F2LXK0ABCD", "status": "diagnosing"]],
    ]

    @Test func everyFormOfAnOrderCodeFindsTheOrder() async throws {
        let daemon = try await startDaemon(["--mock", "qr:bench", "--mock", "barcode:label"])
        let client = try await daemon.connect()
        let stored = try await client.call("orders.upsert", ["order": Self.order])
        #expect(stored["orders"]?[0]?["devices"]?[0]?["orderId"] == "ord_1001")
        for code in [
            "https://app.repairminder.com/orders/ord_1001", "repairminder://orders/ord_1001", "ORDER:ord_1001",
            "order:ord_1001", "RM-1001",
        ] {
            let event = try await client.inject(device: "mock:bench", text: code)
            #expect(event.resolution.handler == "order-lookup" && event.resolution.status == "found", "\(code)")
            #expect(event.resolution.details["order"]?["reference"] == "RM-1001")
        }
        for code in ["https://app.repairminder.com/devices/dev_55", "repairminder://devices/dev_55", "DEVICE:dev_55"] {
            let event = try await client.inject(device: "mock:bench", text: code)
            #expect(event.resolution.status == "found", "\(code)")
            #expect(event.resolution.details["device"]?["serial"] == "F2LXK0ABCD")
            #expect(event.resolution.details["order"]?["id"] == "ord_1001")
        }
        // A reference printed on a Code 128 label is an order, not a SKU.
        let label = try await client.inject(device: "mock:label", text: "rm-1001", symbology: "code-128")
        #expect(label.resolution.handler == "order-lookup" && label.resolution.status == "found")
        #expect(try await client.call("orders.lookup", ["code": "RM-1001"])["order"]?["id"] == "ord_1001")
        await client.close()
    }

    @Test func unknownOrdersAndMalformedCodes() async throws {
        let daemon = try await startDaemon(["--mock", "qr:bench"])
        let client = try await daemon.connect()
        let missing = try await client.inject(device: "mock:bench", text: "ORDER:ord_9")
        #expect(missing.resolution.status == "not_found")
        #expect(missing.resolution.details["reason"]?.stringValue?.contains("ord_9") == true)
        #expect(try await client.inject(device: "mock:bench", text: "DEVICE:").resolution.status == "invalid")
        #expect(try await client.inject(device: "mock:bench", text: "https://example.com/orders/").resolution.status == "invalid")
        #expect(try await client.call("orders.lookup", ["code": "RM-9999"])["status"] == "not_found")
        let bad = await expectRPCError(RPCError.invalidParams) {
            _ = try await client.call("orders.upsert", ["orders": [["id": "ord 1", "reference": "X"]]])
        }
        #expect(bad?.data?["field"] == "orders[0].id")
        _ = try await client.call("orders.upsert", ["order": Self.order])
        let clash = await expectRPCError(RPCError.conflict) {
            _ = try await client.call("orders.upsert", ["order": ["id": "ord_2", "reference": "rm-1001"]])
        }
        #expect(clash?.data?["field"]?.stringValue?.hasPrefix("order") == true)
        await client.close()
    }
}
