import Foundation
import MockDriver
import ScanBridgeGateway
import ScanBridgeServer
import ScanBridgeSharedStore
import Testing
import USBDriver

@testable import ScanBridgeConfig

/// Config files that must be refused with a sentence, not crash the daemon. Each came from
/// FuzzConfig (docs/testing.md, Fuzzing).
struct DaemonConfigLoadingTests {
    /// Loads `text` as a config file in a folder of its own, removed after.
    private func load(_ text: String) throws -> DaemonConfig {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("scanbridge.yaml").path
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return try DaemonConfig.load(path: path)
    }

    @Test func aKeyThatIsAMappingIsRefusedNamingItsSection() {
        // Yams.load traps on a key that is not a scalar: the daemon stopped on this file.
        let error = #expect(throws: DaemonConfig.LoadError.self) {
            try load("log_level: info\nmock:\n  ? kind: script\n    loop: true\n")
        }
        #expect(error?.description.contains("a key in 'mock' is a list or a mapping") == true)
    }

    @Test func aKeyThatIsAListAtTheTopIsRefused() {
        let error = #expect(throws: DaemonConfig.LoadError.self) { try load("? [socket, database]\n: x\n") }
        #expect(error?.description.contains("a key at the top level is a list or a mapping") == true)
    }

    @Test func anUnknownKeyIsStillNamed() {
        let error = #expect(throws: DaemonConfig.LoadError.self) {
            try load("server:\n  max_lines: 3\n").section("server", as: ServerLimits.self)
        }
        #expect(error?.description.contains("unknown key 'max_lines' in 'server'") == true)
        let top = #expect(throws: DaemonConfig.LoadError.self) { try load("servers:\n  max_batch: 3\n") }
        #expect(top?.description.contains("unknown key 'servers' at the top level") == true)
        let own = #expect(throws: DaemonConfig.LoadError.self) { try load("roles:\n  admins: [wheel]\n") }
        #expect(own?.description.contains("unknown key 'admins' in 'roles'; known keys: admin_groups") == true)
    }

    @Test func theGatewaySectionLoadsToItsNestedTLSKeys() throws {
        let http = try load(
            """
            http:
              listen: ["127.0.0.1:8765", "[::1]:0"]
              origins: [https://pos.example]
              hosts: [till-1.shop.lan]
              max_connections: 12
              metrics_public: true
              web_root: /srv/web
              tls:
                certificate: /etc/gateway.pem
                key: /etc/gateway.key
            """
        ).section("http", as: GatewayConfig.self)
        #expect(http?.listen == ["127.0.0.1:8765", "[::1]:0"] && http?.maxConnections == 12)
        #expect(http?.metricsPublic == true && http?.webRoot == "/srv/web")
        #expect(http?.tls.certificate == "/etc/gateway.pem" && http?.tls.key == "/etc/gateway.key")
        let unknown = #expect(throws: DaemonConfig.LoadError.self) {
            try load("http:\n  tls:\n    cert: x\n").section("http", as: GatewayConfig.self)
        }
        #expect(unknown?.description.contains("unknown key 'cert' in 'http.tls'") == true)
        let outOfRange = #expect(throws: DaemonConfig.LoadError.self) {
            try load("http:\n  max_connections: 0\n").section("http", as: GatewayConfig.self)
        }
        #expect(outOfRange?.description.contains("http.max_connections is 0") == true)
    }

    @Test func theStoreSectionTakesItsWaitsInTheirRanges() throws {
        let store = try load(
            "store:\n  url: postgresql://scanbridge@db/shop\n  retry_max_ms: 500\n  answer_limit_ms: 2000\n"
        ).section("store", as: SharedStoreSettings.self)
        #expect(store?.url == "postgresql://scanbridge@db/shop")
        #expect(store?.timing.retryMax == .milliseconds(500) && store?.timing.answerLimit == .seconds(2))
        let defaults = try load("store:\n  url: postgresql://scanbridge@db/shop\n").section("store", as: SharedStoreSettings.self)
        #expect(defaults?.timing.retryMax == .seconds(1) && defaults?.timing.answerLimit == .seconds(10))
        let outOfRange = #expect(throws: DaemonConfig.LoadError.self) {
            try load("store:\n  retry_max_ms: 50\n").section("store", as: SharedStoreSettings.self)
        }
        #expect(outOfRange?.description.contains("store.retry_max_ms is 50; it must be between 100 and 300000") == true)
    }

    @Test func theUSBSectionTakesTheAutomaticResetInItsRange() throws {
        #expect(try load("log_level: info\n").section("usb", as: USBSettings.self) == nil, "off unless configured")
        #expect(try load("usb:\n  auto_reset_after_errors: 3\n").section("usb", as: USBSettings.self)?.autoResetAfterErrors == 3)
        let outOfRange = #expect(throws: DaemonConfig.LoadError.self) {
            try load("usb:\n  auto_reset_after_errors: 0\n").section("usb", as: USBSettings.self)
        }
        // The file's path, then the sentence.
        #expect(
            outOfRange?.description.hasSuffix(".yaml: usb.auto_reset_after_errors is 0; it must be between 1 and 100") == true)
        let unknown = #expect(throws: DaemonConfig.LoadError.self) {
            try load("usb:\n  reset: on\n").section("usb", as: USBSettings.self)
        }
        #expect(unknown?.description.contains("unknown key 'reset' in 'usb'") == true)
    }

    @Test func theDemoConfigLoads() throws {
        let config = try load("log_level: info\nmock:\n  - kind: barcode\n    id: till-1\n    loop: true\n")
        #expect(try config.section("mock", as: [MockDeviceEntry].self)?.count == 1 && config.logLevel == "info")
        let unknown = #expect(throws: DaemonConfig.LoadError.self) {
            try load("mock:\n  - kind: barcode\n    loops: true\n").section("mock", as: [MockDeviceEntry].self)
        }
        #expect(unknown?.description.contains("unknown key 'loops' in 'mock'") == true)
    }
}
