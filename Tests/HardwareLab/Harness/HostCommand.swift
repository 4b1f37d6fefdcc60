import Foundation
import ScanBridgeTesting

/// Runs a command on the host to completion without blocking the cooperative pool: the
/// child writes into a file (no pipe can fill up and stall it) and its end is polled.
enum HostCommand {
    struct Result: Sendable {
        var status: Int32
        var output: String
    }

    /// Runs `command` (a program on `PATH` or an absolute path, then its arguments) in `folder`.
    /// - Throws: `LabFailure` naming `step` when it cannot start, exits non-zero or outlives `timeout`.
    @discardableResult
    static func run(
        _ command: [String], in folder: URL, step: String, timeout: Duration = .seconds(300), allowFailure: Bool = false
    ) async throws -> Result {
        let logURL = folder.appendingPathComponent(".command-\(UUID().uuidString.prefix(8)).log")
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: logURL) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        process.currentDirectoryURL = folder
        let log = try FileHandle(forWritingTo: logURL)
        defer { try? log.close() }
        process.standardOutput = log
        process.standardError = log
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch {
            throw LabFailure(step: step, reason: "could not start \(command[0]): \(error)")
        }
        try await LabFailure.timing(step, onTimeout: { kill(process.processIdentifier, SIGKILL) }) {
            try await waitUntil("\(command.joined(separator: " ")) to exit (it was killed)", timeout: timeout) {
                !process.isRunning
            }
        }
        let output = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
        let result = Result(status: process.terminationStatus, output: output)
        if result.status != 0 && !allowFailure {
            throw LabFailure(
                step: step,
                reason: "\(command.joined(separator: " ")) exited with status \(result.status):\n\(output.suffix(2000))")
        }
        return result
    }

    /// The absolute path of `program` on `PATH`, or nil: a cheap check that needs no child process.
    static func which(_ program: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for folder in (path + ":/usr/sbin:/sbin").split(separator: ":") {
            let candidate = "\(folder)/\(program)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
