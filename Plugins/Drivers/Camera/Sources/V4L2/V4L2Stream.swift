import CV4L2
import Glibc

/// One open V4L2 capture node, streaming into memory-mapped buffers: opened non-blocking (no
/// ioctl waits for a frame), checked (`VIDIOC_QUERYCAP`: video capture and streaming, from
/// `device_caps` when the driver gives them), set to the best format it offers at the size
/// asked for (or the size it gives), buffers requested, mapped and queued, then streaming.
/// `close()` (or the last reference going) stops the stream, unmaps every buffer and closes
/// the node, on every path, failures half way included. Confined to the capture thread.
final class V4L2Stream {
    let path: String
    let fd: Int32
    /// The card's name (`vivid`, `HD Pro Webcam C920`).
    private(set) var card = ""
    private(set) var format = V4L2PixelFormat.grey
    private(set) var width = 0
    private(set) var height = 0
    private(set) var bytesPerLine = 0
    private var buffers: [UnsafeRawBufferPointer] = []
    private var streaming = false
    private var closed = false

    /// How many buffers are asked for: one being read, the rest being filled.
    static let bufferCount: UInt32 = 4

    init(path: String, width: Int, height: Int) throws(V4L2Error) {
        self.path = path
        fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw V4L2Error(errno: errno, doing: "cannot open \(path)") }
        do {
            try checkCapabilities()
            try setFormat(width: width, height: height)
            try mapBuffers()
            try call("start streaming") { cv4l2_stream(fd, 1) }
            streaming = true
        } catch {
            close()
            throw error
        }
    }

    deinit { close() }

    /// Stops streaming, unmaps the buffers and closes the node; again is harmless.
    func close() {
        guard !closed else { return }
        closed = true
        if streaming { _ = cv4l2_stream(fd, 0) }
        for buffer in buffers { munmap(UnsafeMutableRawPointer(mutating: buffer.baseAddress), buffer.count) }
        buffers = []
        Glibc.close(fd)
    }

    /// How many buffers are mapped now (0 once closed).
    var mappedBuffers: Int { buffers.count }

    /// A filled buffer, nil when none is ready (EAGAIN). Give it back with `requeue` once read.
    func dequeue() throws(V4L2Error) -> (index: Int, bytes: UnsafeRawBufferPointer, damaged: Bool)? {
        var index: UInt32 = 0
        var used: UInt32 = 0
        var damaged: Int32 = 0
        guard cv4l2_dequeue_buffer(fd, &index, &used, &damaged) == 0 else {
            let failure = errno
            if failure == EAGAIN || failure == EINTR { return nil }
            throw V4L2Error(errno: failure, doing: "cannot take a frame from \(path)")
        }
        guard Int(index) < buffers.count else { throw V4L2Error("\(path) gave back buffer \(index) of \(buffers.count)") }
        let buffer = buffers[Int(index)]
        let bytes = UnsafeRawBufferPointer(rebasing: buffer[..<min(Int(used), buffer.count)])
        return (Int(index), bytes, damaged != 0)
    }

    func requeue(_ index: Int) throws(V4L2Error) {
        try call("cannot give a buffer back to \(path)") { cv4l2_queue_buffer(fd, UInt32(index)) }
    }

    private func checkCapabilities() throws(V4L2Error) {
        var capabilities: UInt32 = 0
        var name = [CChar](repeating: 0, count: 64)
        guard cv4l2_query_capabilities(fd, &capabilities, &name, name.count) == 0 else {
            let failure = errno
            if failure == ENOTTY || failure == EINVAL {
                throw V4L2Error("\(path) is not a V4L2 device (\(Self.fileType(fd)))")
            }
            throw V4L2Error(errno: failure, doing: "cannot ask \(path) what it is")
        }
        card = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard capabilities & UInt32(CV4L2_CAP_VIDEO_CAPTURE) != 0 else {
            // uvcvideo's metadata node, an output node: not a camera to read.
            throw V4L2Error("\(path) (\(card)) is not a video capture node", declines: true)
        }
        guard capabilities & UInt32(CV4L2_CAP_STREAMING) != 0 else {
            throw V4L2Error("\(path) (\(card)) cannot stream into memory-mapped buffers")
        }
    }

    private func setFormat(width: Int, height: Int) throws(V4L2Error) {
        var offered: [UInt32] = []
        var pixelformat: UInt32 = 0
        // EINVAL past the last format; ENODEV when unplugged meanwhile.
        while offered.count < 256 {
            guard cv4l2_format_at(fd, UInt32(offered.count), &pixelformat) == 0 else {
                if errno == EINVAL { break }
                throw V4L2Error(errno: errno, doing: "cannot list the formats of \(path)")
            }
            offered.append(pixelformat)
        }
        guard let chosen = V4L2PixelFormat.choose(offered: offered) else {
            throw V4L2Error(V4L2PixelFormat.noneSupported(offered: offered, path: path))
        }
        var wide = UInt32(width)
        var high = UInt32(height)
        var given = chosen.fourcc
        var stride: UInt32 = 0
        var size: UInt32 = 0
        try call("cannot set \(path) to \(chosen.rawValue) at \(width)×\(height)") {
            cv4l2_set_format(fd, &wide, &high, &given, &stride, &size)
        }
        guard let format = V4L2PixelFormat(fourcc: given) else {
            throw V4L2Error("\(path) was asked for \(chosen.rawValue) and gave \(FourCC.name(given))")
        }
        self.format = format
        self.width = Int(wide)
        self.height = Int(high)
        // Drivers fill bytesperline for the packed formats; 0 means rows are not padded.
        self.bytesPerLine = stride > 0 ? Int(stride) : Int(wide) * (format == .yuyv ? 2 : 1)
    }

    private func mapBuffers() throws(V4L2Error) {
        let granted = cv4l2_request_buffers(fd, Self.bufferCount)
        guard granted > 0 else {
            throw granted < 0
                ? V4L2Error(errno: errno, doing: "cannot get capture buffers from \(path)")
                : V4L2Error("\(path) granted no capture buffer")
        }
        for index in 0..<UInt32(granted) {
            var offset: UInt32 = 0
            var length: UInt32 = 0
            try call("cannot find capture buffer \(index) of \(path)") { cv4l2_query_buffer(fd, index, &offset, &length) }
            // Safe to map, unlike a file: a V4L2 buffer is the driver's memory, held by the
            // mapping until `munmap` even after an unplug, so a read never faults with SIGBUS.
            let address = mmap(nil, Int(length), PROT_READ, MAP_SHARED, fd, off_t(offset))
            guard let address, address != MAP_FAILED else {
                throw V4L2Error(errno: errno, doing: "cannot map capture buffer \(index) of \(path)")
            }
            buffers.append(UnsafeRawBufferPointer(start: address, count: Int(length)))
            try call("cannot queue capture buffer \(index) of \(path)") { cv4l2_queue_buffer(fd, index) }
        }
    }

    private func call(_ doing: String, _ body: () -> Int32) throws(V4L2Error) {
        guard body() >= 0 else { throw V4L2Error(errno: errno, doing: doing) }
    }

    /// What a node that is not V4L2 is, for the error: a FIFO, a regular file, another device.
    private static func fileType(_ fd: Int32) -> String {
        var status = stat()
        guard fstat(fd, &status) == 0 else { return "unknown file type" }
        switch status.st_mode & S_IFMT {
        case S_IFIFO: return "a FIFO"
        case S_IFREG: return "a regular file"
        case S_IFCHR: return "a character device of another kind"
        case S_IFDIR: return "a folder"
        default: return "not a character device"
        }
    }
}
