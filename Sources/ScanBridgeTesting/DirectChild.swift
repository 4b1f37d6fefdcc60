package import CTestSupport
import Foundation
import Synchronization

/// A child started with posix_spawn and reaped by polling waitpid, for a program that closes
/// the descriptors it inherits: Foundation's Process learns that its child ended when one of
/// them closes, and then waits for that child on the one thread that sees every child end.
package final class DirectChild: Sendable {
    package let pid: pid_t
    private let errPath: String
    private let status = Mutex<Int32?>(nil)

    /// Runs `command` (an absolute path, then its arguments), its output in a file.
    package init(command: [String]) throws {
        errPath =
            FileManager.default.temporaryDirectory.appendingPathComponent(
                "scanbridge-child-\(UUID().uuidString.prefix(8)).err"
            ).path
        let argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        defer { for word in argv { free(word) } }
        var pid = pid_t()
        let spawned = ctest_spawn(&pid, argv, environ, errPath)
        guard spawned == 0 else { throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EIO) }
        self.pid = pid
    }

    deinit {
        killNow()
        unlink(errPath)
    }

    /// Its exit status, once it has exited (a signal's number when killed by one).
    package var exitStatus: Int32? {
        status.withLock { status in
            if status == nil {
                var raw: Int32 = 0
                if waitpid(pid, &raw, WNOHANG) == pid {
                    status = raw & 0x7f == 0 ? (raw >> 8) & 0xff : raw & 0x7f
                }
            }
            return status
        }
    }

    /// What it has written so far.
    package var errors: String { (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? "" }

    /// Waits for it to exit and returns its status; fails after `timeout`.
    package func finish(timeout: Duration = .seconds(60)) async throws -> Int32 {
        try await waitFor("process \(pid) to exit; its output so far: \(errors)", timeout: timeout) { exitStatus }
    }

    package func terminate() {
        if exitStatus == nil { kill(pid, SIGTERM) }
    }

    package func killNow() {
        if exitStatus == nil {
            kill(pid, SIGKILL)
            var raw: Int32 = 0
            waitpid(pid, &raw, 0)
        }
    }
}
