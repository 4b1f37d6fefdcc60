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

    @Test func theDemoConfigLoads() throws {
        let config = try load("log_level: info\nmock:\n  - kind: barcode\n    id: till-1\n    loop: true\n")
        #expect(config.mock.count == 1 && config.logLevel == "info")
    }
}
