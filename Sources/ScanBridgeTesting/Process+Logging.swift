package import Foundation

extension Process {
    /// Runs `executable` with its standard output and error appended to the file at `logPath`
    /// (which must exist), so a failing test can show what the child said.
    package static func launch(
        _ executable: URL, arguments: [String], environment: [String: String]? = nil, appendingTo logPath: String
    ) throws -> Process {
        let child = Process()
        child.executableURL = executable
        child.arguments = arguments
        if let environment { child.environment = environment }
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: logPath))
        try log.seekToEnd()
        child.standardOutput = log
        child.standardError = log
        try child.run()
        return child
    }
}
