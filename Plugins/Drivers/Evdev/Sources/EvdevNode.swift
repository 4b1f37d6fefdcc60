import CEvdev
import Glibc

/// An open input node and what it says of itself. On a FIFO or pty fed by a test the
/// evdev ioctls fail (ENOTTY): the node is still read, with its path for a name.
/// Closed when the last reference goes.
final class EvdevNode {
    let fd: Int32
    let path: String
    /// EVIOCGNAME, else the path.
    let name: String
    /// Whether the ioctls answered: a real evdev node, not a FIFO or a pty.
    let isInputDevice: Bool
    /// A FIFO ends each time its writer closes, and is opened again for the next one.
    let isFIFO: Bool
    var vendorId: UInt16?
    var productId: UInt16?
    /// EVIOCGUNIQ: the USB serial, when the device reports one.
    var serial: String?
    /// EVIOCGPHYS: `usb-0000:00:14.0-2/input0`, the port the device is plugged into.
    var physical: String?

    /// Opens `path` for reading, non-blocking; errno's sentence when it cannot.
    init(path: String) throws(EvdevNodeError) {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw EvdevNodeError(errno: errno, doing: "open \(path)") }
        self.fd = fd
        self.path = path
        var status = stat()
        isFIFO = fstat(fd, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO
        var bus: UInt16 = 0, vendor: UInt16 = 0, product: UInt16 = 0, version: UInt16 = 0
        isInputDevice = cevdev_id(fd, &bus, &vendor, &product, &version) >= 0
        name = (isInputDevice ? Self.text(fd, cevdev_name) : nil) ?? path
        if isInputDevice {
            vendorId = vendor
            productId = product
            serial = Self.text(fd, cevdev_unique)
            physical = Self.text(fd, cevdev_physical)
            // Event times from the monotonic clock: a wall-clock step must not split a burst.
            _ = cevdev_monotonic_clock(fd)
        }
    }

    deinit { close(fd) }

    /// EVIOCGRAB: nil when held (or not an input device, where there is nothing to grab),
    /// else errno (EBUSY: another program holds the grab).
    func grab() -> Int32? {
        guard isInputDevice else { return nil }
        return cevdev_grab(fd, 1) == 0 ? nil : errno
    }

    /// The keys down now (EVIOCGKEY), for a resync after SYN_DROPPED; none on a FIFO.
    func keysDown() -> [UInt16] {
        guard isInputDevice else { return [] }
        var bits = [UInt8](repeating: 0, count: 96)
        guard cevdev_keys_down(fd, &bits, bits.count) >= 0 else { return [] }
        return bits.indices.flatMap { byte in
            (0..<8).compactMap { bit in bits[byte] & (1 << bit) != 0 ? UInt16(byte * 8 + bit) : nil }
        }
    }

    private static func text(_ fd: Int32, _ ioctl: (Int32, UnsafeMutablePointer<CChar>, Int) -> Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard ioctl(fd, &buffer, buffer.count - 1) > 0 else { return nil }
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.isEmpty ? nil : text
    }
}

/// A system call that failed on a node, with errno kept so the reader can tell an unplug
/// (ENODEV) from the rest.
struct EvdevNodeError: Error, CustomStringConvertible {
    let errno: Int32
    let doing: String

    var description: String { "\(doing): \(String(cString: strerror(errno)))" }
}
