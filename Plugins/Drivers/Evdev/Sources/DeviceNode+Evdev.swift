import CEvdev
import DriverKit
import Glibc

/// What an input node says of itself through the evdev ioctls. On a FIFO or pty fed by a
/// test they fail (ENOTTY), and the node is read all the same, named by its path.
struct EvdevIdentity: Sendable, Equatable {
    /// EVIOCGNAME.
    var name: String?
    var vendorId: UInt16
    var productId: UInt16
    /// EVIOCGUNIQ: the USB serial, when the device reports one.
    var serial: String?
    /// EVIOCGPHYS: `usb-0000:00:14.0-2/input0`, the port the device is plugged into.
    var physical: String?
}

extension DeviceNode {
    /// The node's identity, nil when it is not an input device.
    var evdevIdentity: EvdevIdentity? {
        var bus: UInt16 = 0
        var vendor: UInt16 = 0
        var product: UInt16 = 0
        var version: UInt16 = 0
        guard cevdev_id(fd, &bus, &vendor, &product, &version) >= 0 else { return nil }
        return EvdevIdentity(
            name: text(cevdev_name), vendorId: vendor, productId: product,
            serial: text(cevdev_unique), physical: text(cevdev_physical))
    }

    /// Event times from the monotonic clock: a wall-clock step must not split a burst.
    func useMonotonicClock() {
        _ = cevdev_monotonic_clock(fd)
    }

    /// EVIOCGRAB: nil when held, else errno (EBUSY: another program holds the grab).
    func grab() -> Int32? {
        cevdev_grab(fd, 1) == 0 ? nil : errno
    }

    /// The keys down now (EVIOCGKEY), for a resync after SYN_DROPPED; none on a FIFO.
    func keysDown() -> [UInt16] {
        var bits = [UInt8](repeating: 0, count: 96)
        guard cevdev_keys_down(fd, &bits, bits.count) >= 0 else { return [] }
        // The closures' types written out: Swift 6.2's type checker gives up on them without.
        return bits.indices.flatMap { (byte: Int) -> [UInt16] in
            (0..<8).compactMap { (bit: Int) -> UInt16? in bits[byte] & (1 << bit) != 0 ? UInt16(byte * 8 + bit) : nil }
        }
    }

    private func text(_ ioctl: (Int32, UnsafeMutablePointer<CChar>, Int) -> Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard ioctl(fd, &buffer, buffer.count - 1) > 0 else { return nil }
        let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return text.isEmpty ? nil : text
    }
}
