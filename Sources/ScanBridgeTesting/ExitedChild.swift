import Foundation

/// A child that has exited but that Foundation's `Process` has not reaped yet. `Process`
/// learns that its child ended when a descriptor the child inherited closes, then reaps it
/// on the one thread that sees every child end; while that thread waits for another child
/// (one that closed its inherited descriptors early and still runs), a child that exited
/// stays a zombie and `isRunning` stays true. The kernel tells the truth meanwhile.
package enum ExitedChild {
    /// The exit status of `pid`, as `terminationStatus` will give it, when it is a zombie;
    /// nil while it runs (or once reaped).
    package static func status(of pid: Int32) -> Int32? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        // Fields after the command's name: 3 (state) onwards; 52 is the exit code, in
        // waitpid(2)'s form.
        let fields = stat[stat.index(after: close)...].split(whereSeparator: \.isWhitespace)
        guard fields.first == "Z", fields.count >= 50, let raw = Int32(fields[49]) else { return nil }
        return raw & 0x7f == 0 ? (raw >> 8) & 0xff : raw & 0x7f
    }
}

extension Process {
    /// Whether the process has ended, reaped or not.
    package var hasEnded: Bool { !isRunning || ExitedChild.status(of: processIdentifier) != nil }

    /// Its exit status (or the signal that ended it), reaped or not; only once `hasEnded`.
    package var endStatus: Int32 {
        for _ in 0..<10_000 {
            if !isRunning { return terminationStatus }
            if let status = ExitedChild.status(of: processIdentifier) { return status }
            // Reaped between the two looks: `Process` says so a moment later.
            usleep(100)
        }
        return -1
    }
}
