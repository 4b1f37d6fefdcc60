import Testing

@testable import ScanBridgeGateway

/// The gateway's listening addresses and the `Host` values it accepts (DNS rebinding).
struct GatewayAddressTests {
    @Test func addressesParseWithIPv6InBrackets() {
        #expect(GatewayAddress(parsing: "127.0.0.1:8765") == GatewayAddress(host: "127.0.0.1", port: 8765))
        #expect(GatewayAddress(parsing: "[::1]:0") == GatewayAddress(host: "::1", port: 0))
        #expect(GatewayAddress(parsing: "[::1]:0")?.description == "[::1]:0")
        for bad in ["127.0.0.1", "::1:80", "host:99999", ":80", "[::1]80", "x:y"] {
            #expect(GatewayAddress(parsing: bad) == nil, "\(bad)")
        }
    }

    @Test func hostsNameAListenerOrAnAllowedNameAndNothingElse() {
        let access = GatewayAccess(
            settings: GatewaySettings(
                listen: [], hosts: ["till-1.shop.lan", "pos.lan:9000"], webRoot: "/nonexistent"),
            tokens: nil)
        access.listening(on: [
            GatewayAddress(host: "127.0.0.1", port: 8765), GatewayAddress(host: "0.0.0.0", port: 9000),
        ])
        for allowed in [
            "127.0.0.1:8765", "localhost:8765", "LOCALHOST.:8765", "[::1]:8765", "till-1.shop.lan",
            "till-1.shop.lan:8765", "192.168.1.20:9000", "pos.lan:9000",
        ] {
            #expect(access.allows(host: allowed), "\(allowed)")
        }
        for refused in [
            "attacker.example:8765", "localhost:9001", "127.0.0.1:1", "pos.lan:8765", "rebind.example:9000", "",
            "[::1", "a:b:c",
        ] {
            #expect(!access.allows(host: refused), "\(refused)")
        }
    }
}
