import Glibc

/// inotify on `/dev` and `/dev/input`, the hotplug signal when no udevd runs: a node made or
/// removed there is a reason to read sysfs again.
enum DevWatch {
    static let folders = ["/dev", "/dev/input"]

    /// A non-blocking inotify fd watching the folders that exist; -1 when inotify fails.
    static func open() -> Int32 {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { return -1 }
        watch(fd)
        return fd
    }

    /// Reads every pending event, and watches `/dev/input` if it appeared meanwhile.
    static func drain(_ fd: Int32) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while buffer.withUnsafeMutableBytes({ read(fd, $0.baseAddress, $0.count) }) > 0 {}
        watch(fd)
    }

    private static func watch(_ fd: Int32) {
        for folder in folders {
            // Watching a folder already watched returns the same watch: harmless.
            _ = inotify_add_watch(fd, folder, UInt32(IN_CREATE | IN_DELETE | IN_ATTRIB | IN_MOVED_TO))
        }
    }
}
