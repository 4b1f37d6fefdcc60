import Synchronization

/// Event ids: random (version 4) UUIDs in lowercase.
///
/// Foundation's `UUID()` opens and reads /dev/urandom on every call on Linux: system calls
/// on every event. The bits come from a fast generator (SplitMix64) instead, seeded once
/// from the system's entropy: unique, not secret (an event id guards nothing).
package enum EventID {
    private static let generator: Mutex<SplitMix64> = {
        var system = SystemRandomNumberGenerator()
        return Mutex(SplitMix64(seed: system.next()))
    }()

    package static func make() -> String {
        var (high, low) = generator.withLock { ($0.next(), $0.next()) }
        high = (high & ~0xF000) | 0x4000  // version 4
        low = (low & ~(0xC000_0000_0000_0000 as UInt64)) | 0x8000_0000_0000_0000  // RFC 4122 variant
        let digits = Array("0123456789abcdef".utf8)
        var out = [UInt8](repeating: UInt8(ascii: "-"), count: 36)
        var position = 0
        for word in [high, low] {
            for shift in stride(from: 60, through: 0, by: -4) {
                if position == 8 || position == 13 || position == 18 || position == 23 { position += 1 }
                out[position] = digits[Int((word >> UInt64(shift)) & 0xF)]
                position += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// SplitMix64 (Steele, Lea, Flood 2014): tiny, fast, full-period, good enough for ids.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
