import Glibc

/// Why a V4L2 camera cannot be read, in a sentence an operator can act on, with errno kept
/// so an unplug (ENODEV, EIO) is told from the rest.
struct V4L2Error: Error, CustomStringConvertible {
    let errno: Int32
    let sentence: String
    /// The node is no video capture node (a discovered metadata or output node): left alone quietly.
    var declines = false

    /// A failed system call: `doing` and the C library's reason.
    init(errno: Int32, doing: String) {
        self.errno = errno
        self.sentence = "\(doing): \(String(cString: strerror(errno)))"
    }

    /// A sentence of its own.
    init(_ sentence: String, declines: Bool = false) {
        self.errno = 0
        self.sentence = sentence
        self.declines = declines
    }

    /// The camera went away: unplugged (ENODEV), or its USB link failed (EIO).
    var isUnplug: Bool { errno == ENODEV || errno == EIO }
    /// Another program streams from the camera.
    var isBusy: Bool { errno == EBUSY }
    /// The node is not there (yet, or any more).
    var isMissing: Bool { errno == ENOENT || errno == ENODEV || errno == ENXIO }

    var description: String { sentence }
}
