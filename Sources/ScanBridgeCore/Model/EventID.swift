/// Event ids: random (version 4) UUIDs in lowercase. Foundation's `UUID()` opens and reads
/// /dev/urandom on every call on Linux, which showed up as a top cost per event; the
/// system generator asks the kernel with one getrandom call instead.
enum EventID {
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        var high = generator.next() as UInt64
        var low = generator.next() as UInt64
        high = (high & ~0xF000) | 0x4000  // version 4
        low = (low & ~(0xC000_0000_0000_0000 as UInt64)) | 0x8000_0000_0000_0000  // RFC 4122 variant
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8](repeating: UInt8(ascii: "-"), count: 36)
        var position = 0
        for (word, count) in [(high, 16), (low, 16)] {
            for shift in stride(from: count * 4 - 4, through: 0, by: -4) {
                if [8, 13, 18, 23].contains(position) { position += 1 }
                out[position] = digits[Int((word >> UInt64(shift)) & 0xF)]
                position += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
