import Glibc
import Synchronization

/// Tells a device's reader thread to end: a pipe it polls beside the device, so a blocked
/// `poll` returns at once, and backoff sleeps end early.
package final class StopSignal: Sendable {
    /// The end the reader polls: readable once `stop()` was called.
    package let fd: Int32
    private let writeEnd: Int32
    private let stopped = Atomic(false)

    package init() {
        var ends: [Int32] = [-1, -1]
        _ = pipe(&ends)
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        fd = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        close(fd)
        close(writeEnd)
    }

    package var isStopped: Bool { stopped.load(ordering: .acquiring) }

    /// From any thread.
    package func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
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
