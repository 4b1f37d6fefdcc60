import Foundation
import ScanBridgeCodes
import ScanBridgeCore
import ScanBridgeModel
import Testing

@testable import ScanBridgeSharedStore

/// The checks a row of the shop's store passes before a counter keeps it: a client's input
/// limits, in bytes as in characters, and pages whose rows are bounded in bytes.
struct ShopRowChecksTests {
    static let tea = Product(
        id: "tea", storeId: nil, name: "Tea", price: Money(minorUnits: 250, currency: "GBP"), barcode: "5901234123457")

    @Test func aProductAClientCouldGiveHasNoProblem() {
        #expect(Self.tea.inputProblem == nil)
    }

    @Test func aProductPastAClientsLimitsHasOne() {
        var product = Self.tea
        product.name = "Bell\u{07}"
        #expect(product.inputProblem == "name must not contain control characters")
        product.name = " Tea"
        #expect(product.inputProblem?.contains("not as a client would have given it") == true)
        // 10 characters of 101 scalars each: within the characters, past the bytes.
        product.name = String(repeating: "e" + String(repeating: "\u{301}", count: 100), count: 10)
        #expect(product.inputProblem == "name may have at most 256 characters (1024 bytes)")
        product = Self.tea
        product.barcode = "5901234123458"
        #expect(product.inputProblem?.contains("barcode") == true, "a GTIN with a wrong check digit")
    }

    @Test func anOrderOfTooManyDevicesAndACardOrCustomerPastTheLimitsHaveOne() throws {
        let devices = (0...RepairOrder.maxDevices).map { RepairDevice(id: "d\($0)", orderId: "o", status: "received") }
        let order = RepairOrder(id: "o", reference: "RM-1", status: "open", createdAt: Date(), devices: devices)
        #expect(order.inputProblem == "devices may list at most 256 devices")
        #expect(RepairOrder(id: "o", reference: "RM-1", status: "open", createdAt: Date()).inputProblem == nil)
        let customer = Customer(walletAddress: "rAda", email: "not an address", createdAt: Date())
        #expect(customer.inputProblem?.contains("is not an email address") == true)
        let card = Card(uid: try NFCUID(parsing: "04A1B2C3D4E5F6"), walletAddress: "r Ada", createdAt: Date())
        #expect(card.inputProblem == "walletAddress must not contain spaces")
    }

    @Test func aPageOfOrdersWithManyDevicesIsCutShortAndARowNamedTwiceCountsOnce() {
        func change(_ id: Int64, _ table: String, _ key: String) -> ShopChange {
            ShopChange(id: id, stamp: 0, table: table, key: key)
        }
        let orders = (1...100).map { change($0, "scanbridge_order_devices", "ord_\($0)") }
        let cut = ShopReplica.prefix(of: orders, within: 16 << 20)
        #expect(cut.count * ShopRowBounds.maxOrderBytes <= 16 << 20 && cut.count > 1)
        let oneOrder = (1...300).map { change($0, "scanbridge_order_devices", "ord_9") }
        #expect(ShopReplica.prefix(of: oneOrder, within: 16 << 20).count == 300)
        let products = (1...1000).map { change($0, "scanbridge_products", "p\($0)") }
        #expect(ShopReplica.prefix(of: products, within: 16 << 20).count == 1000)
        #expect(ShopReplica.prefix(of: orders, within: 1).count == 1, "never fewer than one change")
    }

    @Test func theRowsLeftOutAreBoundedAndForgottenOnceMended() {
        var refused = RefusedRows()
        let rows = (0..<(RefusedRows.kept + 10)).map { RefusedRow(table: "scanbridge_products", key: "p\($0)", reason: "r") }
        refused.update(applied: ReplicaBatch(through: ReplicaPosition(shop: "s", lastChange: 1, stamp: 0)), refused: rows)
        #expect(refused.count == RefusedRows.kept + 10)
        var mended = ReplicaBatch(through: ReplicaPosition(shop: "s", lastChange: 2, stamp: 0))
        mended.goneProducts = ["p0", "p1"]
        refused.update(applied: mended, refused: [])
        #expect(refused.count == RefusedRows.kept + 8)
        #expect(refused.summary?.hasPrefix("1008 rows of the shop's store are left out") == true)
        #expect(RefusedRows().summary == nil)
    }
}
