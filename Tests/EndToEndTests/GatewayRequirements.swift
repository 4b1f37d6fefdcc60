import Foundation
import ScanBridgeTesting
import Testing

/// What the browser tests against the HTTP gateway need: Chromium, and a `scanbridged`
/// that has the gateway (it says `--http` in its help).
enum GatewayRequirements {
    /// Nil when the tests can run; otherwise why not.
    static let missing: String? = {
        if let reason = Chromium.unavailableReason { return reason }
        let binary = DaemonHarness.productsDirectory.appendingPathComponent("scanbridged")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            return "no scanbridged binary at \(binary.path); run `swift build` first"
        }
        let help = Process()
        help.executableURL = binary
        help.arguments = ["--help"]
        let output = Pipe()
        help.standardOutput = output
        help.standardError = output
        guard (try? help.run()) != nil else { return "could not run \(binary.path) --help" }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        help.waitUntilExit()
        guard text.contains("--http") else {
            return "this scanbridged has no HTTP gateway (its --help does not mention --http)"
        }
        return nil
    }()
}

extension Trait where Self == ConditionTrait {
    /// Skips the suite, with the exact reason, where the gateway or Chromium is missing.
    static var gatewayAndBrowser: Self {
        .enabled(if: GatewayRequirements.missing == nil, Comment(rawValue: GatewayRequirements.missing ?? ""))
    }
}
