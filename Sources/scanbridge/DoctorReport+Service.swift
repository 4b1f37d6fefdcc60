import Foundation

/// The service's state as systemd sees it: said, never a problem (a daemon run by hand, in a
/// container or under another supervisor is as good).
extension DoctorReport {
    /// `systemctl is-active scanbridged` when systemd is PID 1 and systemctl is there, else
    /// "not under systemd". Blocks.
    static func serviceState() -> String {
        let firstProcess = (try? String(contentsOfFile: "/proc/1/comm", encoding: .utf8))?.trimmingCharacters(
            in: .whitespacesAndNewlines)
        guard firstProcess == "systemd",
            let systemctl = ["/usr/bin/systemctl", "/bin/systemctl"].first(where: FileManager.default.isExecutableFile)
        else { return "not under systemd" }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: systemctl)
        process.arguments = ["is-active", "scanbridged"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return "systemctl could not be run: \(error)"
        }
        // is-active prints one word; read to the end, then reap.
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile().prefix(200), as: UTF8.self)
        process.waitUntilExit()
        let state = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return "scanbridged.service is " + (state.isEmpty ? "unknown" : state)
    }
}
