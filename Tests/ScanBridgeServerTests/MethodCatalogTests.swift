import ScanBridgeRPC
import Testing

@Suite("MethodCatalog")
struct MethodCatalogTests {
    @Test("the least role each method needs", arguments: [
        ("bridge.hello", Role.reader), ("events.subscribe", .reader), ("events.recent", .reader),
        ("devices.list", .reader), ("products.lookup", .reader), ("orders.lookup", .reader), ("cards.get", .reader),
        ("cards.link", .operator), ("cards.arm", .operator), ("customers.get", .operator),
        ("devices.claim", .admin), ("devices.listed", .admin), ("scan.inject", .admin), ("mock.attach", .admin),
        ("products.upsert", .admin), ("orders.upsert", .admin), ("handlers.register", .admin),
        // Unknown names: the group decides, and only a whole ".lookup" suffix makes a read.
        ("bridge", .reader), ("eventsx.subscribe", .admin), ("products.lookupx", .admin), ("lookup", .admin),
        ("cardsx.get", .admin), ("", .admin),
    ])
    func requiredRole(_ method: String, role: Role) {
        #expect(MethodCatalog.requiredRole(for: method) == role)
    }
}
