import Foundation
import ScanBridgeTesting
import Synchronization

/// What a finished command printed.
struct CommandResult {
    var status: Int32
    var out: String
    var err: String
}

/// Runs one of the built products (or a system command, with `prefix`) to completion.
func run(_ product: String, _ arguments: [String], prefix: [String] = []) async throws -> CommandResult {
    try await Spawned(product, arguments, prefix: prefix).finish(timeout: .seconds(60))
}

/// A child process whose output is collected in files (no pipe can fill up and stall it).
final class Spawned: Sendable {
    private let process: Process
    /// The command line, for what a wait was for.
    private let command: String
    private let outPath: String
    private let errPath: String

    convenience init(_ product: String, _ arguments: [String], prefix: [String] = []) throws {
        let binary = DaemonHarness.productsDirectory.appendingPathComponent(product).path
        try self.init(command: prefix + [binary] + arguments)
    }

    /// Runs `command` (an absolute path, then its arguments).
    init(command: [String]) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "scanbridge-cli-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        outPath = folder.appendingPathComponent("out").path
        errPath = folder.appendingPathComponent("err").path
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
        self.command = command.joined(separator: " ")
        process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: outPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: outPath).deletingLastPathComponent().path)
    }

    /// Waits for the process to exit and returns what it printed; fails after `timeout`.
    func finish(timeout: Duration = .seconds(60)) async throws -> CommandResult {
        try await waitUntil("\(command) to exit; its errors so far: \(read(errPath))", timeout: timeout) { process.hasEnded }
        return CommandResult(status: process.endStatus, out: read(outPath), err: read(errPath))
    }

    /// The first complete line of standard output, once there is one; fails after `timeout`.
    func firstLine(timeout: Duration = .seconds(20)) async throws -> String {
        try await lines(1, timeout: timeout)[0]
    }

    /// The first `count` complete lines of standard output, once there are as many; fails after `timeout`.
    func lines(_ count: Int, timeout: Duration = .seconds(20)) async throws -> [String] {
        try await waitFor("\(count) lines from \(command); its errors so far: \(read(errPath))", timeout: timeout) {
            let lines = read(outPath).split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            return lines.count >= count ? lines.prefix(count).map(String.init) : nil
        }
    }

    /// What the process has written to standard error so far.
    var errors: String { read(errPath) }

    /// Kills the process at once (a handler plugin that crashes).
    func killNow() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    func interrupt() {
        if process.isRunning { kill(process.processIdentifier, SIGINT) }
    }

    /// Asks the process to stop, as systemd does.
    func terminate() {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
    }

    var isRunning: Bool { !process.hasEnded }

    private func read(_ path: String) -> String {
        (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }
}

/// Whether a test may run the built products as another user: it needs root to switch, and a
/// build folder every user can reach (a clone in a private folder, such as `mktemp -d`'s, is not).
enum AnotherUser {
    static let unavailableReason: String? = {
        guard getuid() == 0 else { return "switching to another user needs root" }
        var folder = DaemonHarness.productsDirectory.standardizedFileURL
        while folder.path != "/" {
            var status = stat()
            guard stat(folder.path, &status) == 0, status.st_mode & S_IXOTH != 0 else {
                return "other users cannot reach the build folder: \(folder.path) is not o+x"
            }
            folder.deleteLastPathComponent()
        }
        return nil
    }()
}
