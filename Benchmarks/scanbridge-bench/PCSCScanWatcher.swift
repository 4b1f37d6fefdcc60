import Foundation
import Synchronization

/// `pcsc_scan` (Debian pcsc-tools) watching a pcscd: the tap benchmark's baseline, a plain
/// PC/SC client that only waits in `SCardGetStatusChange` and prints what changed.
///
/// It runs under `stdbuf -oL` (line-buffered output into the pipe) with `-n` (no ATR
/// analysis, which would start a Perl script per card). A thread of its own blocks in
/// `read` on the pipe and stamps each line the moment it arrives, as `LineStamper` does for
/// the daemon's socket, so both sides are timed the same way.
final class PCSCScanWatcher: Sendable {
    static let executable = "/usr/bin/pcsc_scan"

    private let process: Mutex<Process>
    /// Kept open for the reading thread as long as the watcher lives.
    private let output: FileHandle
    /// When each `Card inserted` / `Card removed` line arrived (monotonic nanoseconds).
    private let inserted = Mutex<[UInt64]>([])
    private let removed = Mutex<[UInt64]>([])

    /// Starts `pcsc_scan` with `environment` (the private pcscd's `PCSCLITE_CSOCK_NAME`).
    init(environment: [String: String]) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.executable) else {
            throw BenchmarkFailure(
                description: "no \(Self.executable): install the Debian package pcsc-tools (scripts/deps.sh bench does)")
        }
        let pipe = Pipe()
        let child = Process()
        child.executableURL = URL(fileURLWithPath: "/usr/bin/stdbuf")
        child.arguments = ["-oL", Self.executable, "-n"]
        child.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        child.standardOutput = pipe
        child.standardError = FileHandle.nullDevice
        try child.run()
        process = Mutex(child)
        output = pipe.fileHandleForReading
        let descriptor = output.fileDescriptor
        let thread = Thread { [self] in readLines(from: descriptor) }
        thread.name = "pcsc_scan-reader"
        thread.start()
    }

    deinit {
        process.withLock { if $0.isRunning { kill($0.processIdentifier, SIGKILL) } }
    }

    var insertedLines: [UInt64] { inserted.withLock { $0 } }
    var removedCount: Int { removed.withLock { $0.count } }

    /// SIGKILL: pcsc_scan inherits the blocked signal mask of the thread that spawned it,
    /// SIGTERM among them, and it has nothing to save.
    func stop() async {
        let child = process.withLock { $0 }
        if child.isRunning { kill(child.processIdentifier, SIGKILL) }
        while child.isRunning { try? await Task.sleep(for: .milliseconds(5)) }
    }

    /// Blocks in `read` until pcsc_scan exits. A chunk's lines all get the time it arrived.
    private func readLines(from descriptor: Int32) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        var pending: [UInt8] = []
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress!, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return }
            let arrived = Nanos.now()
            pending += buffer[0..<count]
            while let newline = pending.firstIndex(of: 0x0A) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                if line.contains("Card state: Card inserted") { inserted.withLock { $0.append(arrived) } }
                if line.contains("Card state: Card removed") { removed.withLock { $0.append(arrived) } }
            }
        }
    }
}
