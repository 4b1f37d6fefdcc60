import Foundation
import ScanBridgeTesting

/// A lab step that failed: which step, why, and where the guest's console log is kept.
struct LabFailure: Error, CustomStringConvertible {
    let step: String
    let reason: String
    var consoleLog: String?

    init(step: String, reason: String, consoleLog: String? = nil) {
        self.step = step
        self.reason = reason
        self.consoleLog = consoleLog
    }

    var description: String {
        var text = "hardware lab step \"\(step)\" failed: \(reason)"
        if let consoleLog {
            text += "\nguest console log kept at \(consoleLog)"
            let tail = ((try? String(contentsOfFile: consoleLog, encoding: .utf8)) ?? "")
                .split(separator: "\n", omittingEmptySubsequences: false).suffix(25).joined(separator: "\n")
            if !tail.isEmpty { text += "; its last lines:\n\(tail)" }
        }
        return text
    }

    /// Runs `body`, a wait with a deadline (`waitUntil`, `waitFor`), and turns its `TimedOut`
    /// into a failure of `step`, so the lab's errors keep naming their step and the console
    /// log; `onTimeout` runs first (to kill what hung).
    static func timing<T>(
        _ step: String, consoleLog: String? = nil, isolation: isolated (any Actor)? = #isolation,
        onTimeout: () -> Void = {}, _ body: () async throws -> T
    ) async throws -> T {
        do {
            return try await body()
        } catch let timedOut as TimedOut {
            onTimeout()
            throw LabFailure(step: step, reason: timedOut.description, consoleLog: consoleLog)
        }
    }
}
