import CEvdev
import Glibc
import Synchronization

/// Tells a device's reader thread to end: an eventfd it polls beside the device, so a
/// blocked `poll` returns at once, and backoff sleeps end early.
final class StopSignal: Sendable {
    let fd: Int32
    private let stopped = Atomic(false)

    init() {
        fd = eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK))
    }

    deinit { close(fd) }

    var isStopped: Bool { stopped.load(ordering: .acquiring) }

    /// From any thread.
    func stop() {
        stopped.store(true, ordering: .releasing)
        var one: UInt64 = 1
        _ = write(fd, &one, 8)
    }

    /// Sleeps up to `seconds`; false when stopped meanwhile.
    func sleep(seconds: Double) -> Bool {
        guard !isStopped else { return false }
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        _ = poll(&descriptor, 1, Int32(seconds * 1000))
        return !isStopped
    }
}
