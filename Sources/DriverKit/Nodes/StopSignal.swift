import Glibc
import Synchronization

/// Tells a device's reader thread to end: a pipe it polls beside the device, so a blocked
/// `poll` returns at once, and backoff sleeps end early.
package final class StopSignal: Sendable {
    /// The end the reader polls: readable once `stop()` was called; -1 when there is no pipe.
    package let fd: Int32
    private let writeEnd: Int32
    private let stopped = Atomic(false)
    /// Why there is no pipe (out of file descriptors): a loop must not start then, since
    /// nothing could wake its `poll` to stop it; it reports this as its device's error.
    package let failure: String?

    /// - Parameter makePipe: `pipe(2)`, replaceable so a test can make it fail.
    package init(makePipe: (UnsafeMutablePointer<Int32>) -> Int32 = { pipe($0) }) {
        var ends: [Int32] = [-1, -1]
        if makePipe(&ends) == 0 {
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
            failure = nil
        } else {
            failure = "cannot make the pipe that stops its thread: \(String(cString: strerror(errno)))"
            ends = [-1, -1]
        }
        fd = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        if fd >= 0 { close(fd) }
        if writeEnd >= 0 { close(writeEnd) }
    }

    package var isStopped: Bool { stopped.load(ordering: .acquiring) }

    /// From any thread.
    package func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing), writeEnd >= 0 else { return }
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Sleeps up to `seconds`; false when stopped meanwhile.
    package func sleep(seconds: Double) -> Bool {
        guard !isStopped else { return false }
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        _ = poll(&descriptor, 1, Int32(seconds * 1000))
        return !isStopped
    }
}
