import Foundation
import ScanBridgeTesting
import Testing

/// The build without the package traits (`make demo`: `swift build --disable-default-traits`),
/// which no other test compiles: the gateway and the daemon are type-checked here without
/// `SharedStore` and `GatewayTLS`, with the compiler's arguments of this very build
/// (docs/architecture.md, Design decisions), so that a change that breaks the demo's build
/// fails the suites instead of the newcomer's first command.
@Suite("Build without traits")
struct BuildWithoutTraitsTests {
    static let traits: Set<String> = ["-DSharedStore", "-DGatewayTLS"]

    @Test func theGatewayAndTheDaemonCompileWithoutTheirTraits() async throws {
        let manifest = try Self.buildManifest()
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("no-traits-\(getpid())")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }

        let gateway = try Self.arguments(of: "ScanBridgeGateway", in: manifest)
        try await Self.compile(gateway, mode: ["-typecheck"], modules: scratch)
        try await Self.compile(
            gateway,
            mode: ["-emit-module", "-emit-module-path", scratch.appendingPathComponent("ScanBridgeGateway.swiftmodule").path],
            modules: scratch)
        try await Self.compile(try Self.arguments(of: "scanbridged", in: manifest), mode: ["-typecheck"], modules: scratch)
    }

    /// SwiftPM's build manifest of the build this test binary belongs to
    /// (`.build/<triple>/debug/ScanBridgePackageTests.xctest` → `.build/debug.yaml`).
    static func buildManifest() throws -> String {
        let binary = URL(fileURLWithPath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        let configuration = binary.deletingLastPathComponent()
        let manifest = configuration.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("\(configuration.lastPathComponent).yaml")
        return try String(contentsOf: manifest, encoding: .utf8)
    }

    /// The compiler's arguments for `module`, as the manifest holds them.
    static func arguments(of module: String, in manifest: String) throws -> [String] {
        let lines = manifest.split(separator: "\n", omittingEmptySubsequences: false)
        let key = "  \"C.\(module)-"
        let start = try #require(
            lines.firstIndex { $0.hasPrefix(key) && $0.hasSuffix("-debug.module\":") },
            "no compile command for \(module) in the build manifest")
        let line = try #require(
            lines[start...].dropFirst().prefix { $0.hasPrefix("    ") }.first { $0.hasPrefix("    args: ") },
            "no arguments for \(module)")
        let json = Data(line.dropFirst("    args: ".count).utf8)
        return try JSONDecoder().decode([String].self, from: json)
    }

    /// Runs the compiler with `arguments` less the traits' conditions and what writes the
    /// build's own outputs, in `mode`, finding modules in `modules` before the build's.
    static func compile(_ arguments: [String], mode: [String], modules: URL) async throws {
        let dropped: Set<String> = [
            "-emit-dependencies", "-emit-module", "-incremental", "-c", "-enable-batch-mode", "-serialize-diagnostics",
            "-parseable-output", "-emit-objc-header",
        ]
        let droppedWithValue: Set<String> = [
            "-emit-module-path", "-output-file-map", "-index-store-path", "-emit-objc-header-path",
        ]
        var kept: [String] = []
        var skipNext = false
        for argument in arguments.dropFirst() {
            if skipNext {
                skipNext = false
            } else if droppedWithValue.contains(argument) {
                skipNext = true
            } else if !dropped.contains(argument), !traits.contains(argument) {
                kept.append(argument)
            }
        }
        // What it says goes to a file, not a pipe that could fill up and stall it; waited for
        // off the thread, with a deadline.
        let log = modules.appendingPathComponent("\(mode.first!).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let compiler = try Process.launch(
            URL(fileURLWithPath: arguments[0]), arguments: ["-I", modules.path] + kept + mode, appendingTo: log.path)
        try await waitUntil("\(mode.first!) without the traits to end", timeout: .seconds(120)) { compiler.hasEnded }
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        #expect(compiler.endStatus == 0, "\(mode.first!) without the traits failed:\n\(text)")
        #expect(!text.contains("warning:"), "\(mode.first!) without the traits warned:\n\(text)")
    }
}
