import Foundation

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
}
