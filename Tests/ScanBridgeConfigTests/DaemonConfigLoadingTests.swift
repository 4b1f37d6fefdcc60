import Foundation
import Testing

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
        let error = #expect(throws: DaemonConfig.LoadError.self) { try load("server:\n  max_lines: 3\n") }
        #expect(error?.description.contains("unknown key 'max_lines' in 'server'") == true)
    }

    @Test func theGatewaySectionLoadsToItsNestedTLSKeys() throws {
        let config = try load(
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
            """)
        #expect(config.http.listen == ["127.0.0.1:8765", "[::1]:0"] && config.http.maxConnections == 12)
        #expect(config.http.metricsPublic && config.http.webRoot == "/srv/web")
        #expect(config.http.tls.certificate == "/etc/gateway.pem" && config.http.tls.key == "/etc/gateway.key")
        let unknown = #expect(throws: DaemonConfig.LoadError.self) { try load("http:\n  tls:\n    cert: x\n") }
        #expect(unknown?.description.contains("unknown key 'cert' in 'http.tls'") == true)
        let outOfRange = #expect(throws: DaemonConfig.LoadError.self) {
            try load("http:\n  max_connections: 0\n").checkRanges()
        }
        #expect(outOfRange?.description.contains("http.max_connections is 0") == true)
    }

    @Test func theUSBSectionTakesTheAutomaticResetInItsRange() throws {
        #expect(try load("log_level: info\n").usb.autoResetAfterErrors == nil, "off unless configured")
        #expect(try load("usb:\n  auto_reset_after_errors: 3\n").usb.autoResetAfterErrors == 3)
        let outOfRange = #expect(throws: DaemonConfig.LoadError.self) {
            try load("usb:\n  auto_reset_after_errors: 0\n").checkRanges()
        }
        #expect(outOfRange?.description == "usb.auto_reset_after_errors is 0; it must be between 1 and 100")
        let unknown = #expect(throws: DaemonConfig.LoadError.self) { try load("usb:\n  reset: on\n") }
        #expect(unknown?.description.contains("unknown key 'reset' in 'usb'") == true)
    }

    @Test func theDemoConfigLoads() throws {
        let config = try load("log_level: info\nmock:\n  - kind: barcode\n    id: till-1\n    loop: true\n")
        #expect(config.mock.count == 1 && config.logLevel == "info")
    }
}
