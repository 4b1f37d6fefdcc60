import Foundation
import Glibc

/// A device's life on a thread of its own (a `NodeReadLoop`, a camera's capture loop), as
/// the daemon (`--device`) or the discovery of its node starts and ends it.
package protocol DeviceLoop: Sendable {
    /// Signalled to end the loop; its thread then ends promptly.
    var stop: StopSignal { get }
    /// The loop itself, on the thread `start(name:)` makes; returns when stopped.
    func run()
}

extension DeviceLoop {
    /// Starts the loop on a new thread named `name`, for the kernel too (`top -H`,
    /// `/proc/PID/task/*/comm`, its first 15 bytes): Foundation names it for itself only.
    package func start(name: String) {
        let thread = Thread {
            Self.nameForTheKernel(name)
            self.run()
        }
        thread.name = name
        thread.start()
    }
}

extension DeviceLoop {
    /// What `pthread_setname_np` does (which Glibc's module leaves out): the calling thread's
    /// `comm`, truncated to the kernel's 15 bytes. Best effort: a thread keeps its name on failure.
    static func nameForTheKernel(_ name: String) {
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }
}

extension NodeReadLoop: DeviceLoop {}
