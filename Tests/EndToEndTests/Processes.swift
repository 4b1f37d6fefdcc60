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
    let spawned = try Spawned(product, arguments, prefix: prefix)
    return try await within(60, "\(product) \(arguments.joined(separator: " "))") { try await spawned.finish() }
}

/// A child process whose output is collected in files (no pipe can fill up and stall it).
final class Spawned: Sendable {
    private let process: Process
    private let outPath: String
    private let errPath: String

    convenience init(_ product: String, _ arguments: [String], prefix: [String] = []) throws {
        let binary = DaemonHarness.productsDirectory.appendingPathComponent(product).path
        try self.init(command: prefix + [binary] + arguments)
    }

    /// Runs `command` (an absolute path, then its arguments).
    init(command: [String]) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("scanbridge-cli-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        outPath = folder.appendingPathComponent("out").path
        errPath = folder.appendingPathComponent("err").path
        _ = FileManager.default.createFile(atPath: outPath, contents: nil)
        _ = FileManager.default.createFile(atPath: errPath, contents: nil)
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

    func finish() async throws -> CommandResult {
        while process.isRunning { try await Task.sleep(for: .milliseconds(5)) }
        return CommandResult(status: process.terminationStatus, out: read(outPath), err: read(errPath))
    }

    /// The first complete line of standard output.
    func firstLine() async throws -> String {
        while true {
            let text = read(outPath)
            if let newline = text.firstIndex(of: "\n") { return String(text[..<newline]) }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Kills the process at once (a handler plugin that crashes).
    func killNow() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    func interrupt() {
        if process.isRunning { kill(process.processIdentifier, SIGINT) }
    }

    private func read(_ path: String) -> String {
        (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
    }
}
