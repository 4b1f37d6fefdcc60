import Glibc

/// An open device node (`/dev/input/event*`, `/dev/hidraw*`, `/dev/ttyACM*`), or a FIFO,
/// pty or file standing in for one in a test. Closed when the last reference goes.
package final class DeviceNode {
    package let fd: Int32
    package let path: String
    /// A FIFO ends each time its writer closes, and is opened again for the next one.
    package let isFIFO: Bool
    /// A regular file (a recording) is read once, to its end.
    package let isRegularFile: Bool

    /// Opens `path` non-blocking with `flags` (`O_RDONLY`, or `O_RDWR | O_NOCTTY` for a tty).
    package init(path: String, flags: Int32 = O_RDONLY) throws(DeviceNodeError) {
        let fd = open(path, flags | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw DeviceNodeError(errno: errno, doing: "cannot open \(path)") }
        self.fd = fd
        self.path = path
        var status = stat()
        let mode = fstat(fd, &status) == 0 ? status.st_mode & S_IFMT : 0
        isFIFO = mode == S_IFIFO
        isRegularFile = mode == S_IFREG
    }

    deinit { close(fd) }
}

/// A system call that failed on a node, with errno kept so a reader can tell an unplug
/// (ENODEV) from the rest.
package struct DeviceNodeError: Error, CustomStringConvertible {
    package let errno: Int32
    package let doing: String
    /// The node is not this driver's to read (a discovered hidraw node of a keyboard, not a
    /// HID POS scanner): the loop ends without a word to the registry.
    package let declines: Bool

    package init(errno: Int32, doing: String, declines: Bool = false) {
        self.errno = errno
        self.doing = doing
        self.declines = declines
    }

    /// With errno 0, `doing` is the whole sentence.
    package var description: String { errno == 0 ? doing : "\(doing): \(String(cString: strerror(errno)))" }
}

extension DeviceNode {
    /// `DRIVER:` and the path, every run of other characters than ASCII letters, digits, `.`,
    /// `-` and `:` made `_`: a path given with `--device` is the device's stable name
    /// (`/dev/input/by-id/usb-…-event-kbd` survives replugs).
    package static func deviceID(driver: String, path: String) -> String {
        var id = ""
        for scalar in path.unicodeScalars {
            let keep =
                scalar.isASCII
                && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || ".-:".unicodeScalars.contains(scalar))
            if keep { id.unicodeScalars.append(scalar) } else if !id.hasSuffix("_") { id += "_" }
        }
        return driver + ":" + (id.hasPrefix("_") ? String(id.dropFirst()) : id)
    }
}
