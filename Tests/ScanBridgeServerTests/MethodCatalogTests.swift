import ScanBridgeRPC
import Testing

@Suite("MethodCatalog")
struct MethodCatalogTests {
    @Test(
        "the least role each method needs",
        arguments: [
            ("bridge.hello", Role.reader), ("events.subscribe", .reader), ("events.recent", .reader),
            ("devices.list", .reader), ("products.lookup", .reader), ("orders.lookup", .reader), ("cards.get", .reader),
            ("cards.link", .operator), ("cards.arm", .operator), ("customers.get", .operator), ("devices.reset", .operator),
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

@Suite("SocketPath")
struct SocketPathTests {
    @Test("the first path that applies, as docs/protocol.md lists them")
    func resolve() {
        let xdg = ["XDG_RUNTIME_DIR": "/run/user/1000"]
        #expect(SocketPath.resolve(explicit: "/a.sock", environment: ["SCANBRIDGE_SOCKET": "/b.sock"], uid: 1000) == "/a.sock")
        #expect(SocketPath.resolve(environment: ["SCANBRIDGE_SOCKET": "/b.sock"].merging(xdg) { $1 }, uid: 1000) == "/b.sock")
        #expect(
            SocketPath.resolve(environment: ["RUNTIME_DIRECTORY": "/run/scanbridge:/run/other"].merging(xdg) { $1 }, uid: 0)
                == "/run/scanbridge/scanbridge.sock")
        #expect(SocketPath.resolve(environment: xdg, uid: 1000) == "/run/user/1000/scanbridge/scanbridge.sock")
        #expect(SocketPath.resolve(environment: [:], uid: 0) == SocketPath.system)
        // No shared /tmp fallback: another user could take that path first.
        #expect(SocketPath.resolve(environment: [:], uid: 1000) == nil)
        #expect(SocketPath.resolve(explicit: "", environment: ["SCANBRIDGE_SOCKET": ""], uid: 1000) == nil)
    }

    @Test("a client falls back to the system daemon only from a per-user default")
    func candidates() {
        let xdg = ["XDG_RUNTIME_DIR": "/run/user/1000"]
        #expect(
            SocketPath.candidates(environment: xdg, uid: 1000) == [
                "/run/user/1000/scanbridge/scanbridge.sock", SocketPath.system,
            ])
        #expect(SocketPath.candidates(explicit: "/a.sock", environment: xdg, uid: 1000) == ["/a.sock"])
        #expect(SocketPath.candidates(environment: ["SCANBRIDGE_SOCKET": "/b.sock"], uid: 1000) == ["/b.sock"])
        #expect(SocketPath.candidates(environment: [:], uid: 1000) == [SocketPath.system])
        #expect(SocketPath.candidates(environment: [:], uid: 0) == [SocketPath.system])
    }
}
