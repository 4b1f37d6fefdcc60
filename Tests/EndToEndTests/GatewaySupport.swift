import Foundation
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeTesting
import Testing

/// A daemon with its gateway on a free loopback port, a page folder of its own, and an admin
/// connection on its socket to make tokens with.
struct GatewayDaemon {
    let daemon: DaemonHarness
    let admin: ScanBridgeClient
    let client: GatewayClient

    static let origin = "http://pos.example"

    static func start(
        _ arguments: [String] = ["--mock", "barcode:till-1"], origins: [String] = [origin], http: String = "",
        server: String = "",
        listen: String = "127.0.0.1:0", certificate: String? = nil, reusing other: DaemonHarness? = nil
    ) async throws -> GatewayDaemon {
        let base = try other ?? DaemonHarness(arguments: [])
        let web = base.directory.appendingPathComponent("web")
        try FileManager.default.createDirectory(at: web, withIntermediateDirectories: true)
        try "<!doctype html><title>ScanBridge</title>".write(
            to: web.appendingPathComponent("index.html"), atomically: true, encoding: .utf8)
        try "export const ok = 1;\n".write(to: web.appendingPathComponent("app.mjs"), atomically: true, encoding: .utf8)
        let config = try base.write(
            "scanbridge.yaml",
            """
            http:
              origins: [\(origins.map { "\"\($0)\"" }.joined(separator: ", "))]
              web_root: \(web.path)
            \(http)
            server:
              max_line_bytes: 65536
            \(server)
            """)
        let daemon = try DaemonHarness.reusing(base, arguments: arguments + ["--http", listen, "--config", config])
        try await daemon.start()
        return GatewayDaemon(
            daemon: daemon, admin: try await daemon.connect(), client: try daemon.gatewayClient(trusting: certificate))
    }

    /// A new token's secret and id.
    func token(_ role: String, origins: [String] = []) async throws -> (secret: String, id: String) {
        let created = try await admin.call(
            "tokens.create",
            ["name": .string("test \(role)"), "role": .string(role), "origins": .array(origins.map { .string($0) })])
        return (try #require(created["secret"]?.stringValue), try #require(created["token"]?["id"]?.stringValue))
    }

    func stop() async throws {
        await admin.close()
        _ = try await daemon.stop()
    }
}

extension Result where Failure == GatewayClient.ReplyError {
    /// The opened stream or socket; records the refusal otherwise.
    func opened(sourceLocation: SourceLocation = #_sourceLocation) throws -> Success {
        switch self {
        case .success(let value): return value
        case .failure(let refusal):
            Issue.record("refused: \(refusal.reply)", sourceLocation: sourceLocation)
            throw refusal
        }
    }

    /// The refusal; records an opened stream or socket.
    func refusal(sourceLocation: SourceLocation = #_sourceLocation) -> GatewayClient.Reply? {
        switch self {
        case .success:
            Issue.record("opened, where a refusal was expected", sourceLocation: sourceLocation)
            return nil
        case .failure(let refusal): return refusal.reply
        }
    }
}
