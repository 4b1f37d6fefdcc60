import ScanBridgeCore
import ScanBridgeModel
import Testing

@testable import OrderLookup

/// The forms of an order code (docs/protocol.md "Resolutions", `order-lookup`).
@Suite struct OrderCodeTests {
    static let references = try! TextPattern(OrderLookup.defaultReferencePattern)

    @Test(arguments: [
        ("https://app.repairminder.com/orders/ord_1001", OrderCode.order("ord_1001")),
        ("http://host/x/orders/ord_1001/?utm=1", .order("ord_1001")),
        ("https://host/devices/dev%5F55", .device("dev_55")),
        ("repairminder://orders/ord_1001", .order("ord_1001")),
        ("repairminder://devices/dev_55", .device("dev_55")),
        ("ORDER:ord_1001", .order("ord_1001")),
        ("order:ord_1001", .order("ord_1001")),
        ("Device: dev_55", .device("dev_55")),
        ("RM-1001", .reference("RM-1001")),
        ("rm1001", .reference("rm1001")),
    ])
    func forms(text: String, code: OrderCode) {
        #expect(OrderCode.parse(text, references: Self.references) == code)
    }

    @Test func notOrderCodes() {
        for text in ["SKU001", "5901234123457", "https://id.gs1.org/01/05901234123457", "mailto:a@b.c", "hello there"] {
            #expect(OrderCode.parse(text, references: Self.references) == nil, "\(text)")
        }
        // Typed lookups take any plain text as a reference.
        #expect(OrderCode.parse("T-77", references: nil) == .reference("T-77"))
    }

    @Test func malformedOrderCodesAreInvalid() {
        for text in ["ORDER:", "DEVICE:  ", "https://host/orders/", "repairminder://orders"] {
            guard case .invalid? = OrderCode.parse(text, references: Self.references) else {
                Issue.record("\(text) should be invalid")
                continue
            }
        }
    }
}
