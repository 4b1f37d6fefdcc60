/// One `struct input_event` as the kernel writes it to an evdev node (24 bytes on 64-bit
/// Linux: a `timeval`, then type, code and value; linux/input.h).
struct InputEvent: Equatable, Sendable {
    /// When the kernel saw it, in microseconds (`CLOCK_REALTIME` unless the device was
    /// switched to a monotonic clock; only differences between events are used).
    var microseconds: Int64
    var type: UInt16
    var code: UInt16
    var value: Int32

    static let size = 24
    static let synchronization: UInt16 = 0  // EV_SYN
    static let key: UInt16 = 1  // EV_KEY
    static let report: UInt16 = 0  // SYN_REPORT
    static let dropped: UInt16 = 3  // SYN_DROPPED

    init(microseconds: Int64, type: UInt16, code: UInt16, value: Int32) {
        self.microseconds = microseconds
        self.type = type
        self.code = code
        self.value = value
    }

    /// Reads one record from the first 24 bytes of `bytes` (little-endian, as on x86-64 and arm64).
    init(_ bytes: UnsafeRawBufferPointer) {
        let seconds = bytes.loadUnaligned(fromByteOffset: 0, as: Int64.self)
        let micros = bytes.loadUnaligned(fromByteOffset: 8, as: Int64.self)
        self.init(
            microseconds: seconds &* 1_000_000 &+ micros,
            type: bytes.loadUnaligned(fromByteOffset: 16, as: UInt16.self),
            code: bytes.loadUnaligned(fromByteOffset: 18, as: UInt16.self),
            value: bytes.loadUnaligned(fromByteOffset: 20, as: Int32.self))
    }

    /// The record as the kernel writes it (for tests and recordings).
    var bytes: [UInt8] {
        var out = [UInt8](repeating: 0, count: Self.size)
        out.withUnsafeMutableBytes { raw in
            raw.storeBytes(of: microseconds / 1_000_000, toByteOffset: 0, as: Int64.self)
            raw.storeBytes(of: microseconds % 1_000_000, toByteOffset: 8, as: Int64.self)
            raw.storeBytes(of: type, toByteOffset: 16, as: UInt16.self)
            raw.storeBytes(of: code, toByteOffset: 18, as: UInt16.self)
            raw.storeBytes(of: value, toByteOffset: 20, as: Int32.self)
        }
        return out
    }
}

/// Cuts a byte stream into `input_event` records. A real evdev node returns whole records,
/// but a FIFO or pty fed by a test may split one across reads: the tail waits for the rest.
struct InputEventSplitter {
    private var pending: [UInt8] = []

    mutating func feed(_ chunk: some Collection<UInt8>) -> [InputEvent] {
        pending.append(contentsOf: chunk)
        let whole = pending.count / InputEvent.size
        guard whole > 0 else { return [] }
        let events = pending.withUnsafeBytes { raw in
            (0..<whole).map {
                InputEvent(UnsafeRawBufferPointer(rebasing: raw[($0 * InputEvent.size)...].prefix(InputEvent.size)))
            }
        }
        pending.removeFirst(whole * InputEvent.size)
        return events
    }
}
