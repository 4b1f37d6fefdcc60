/// A set of byte strings that answers "maybe" or "certainly not": never a false "not",
/// sometimes a false "maybe" (a Bloom filter). Sized to its capacity, to the word: a probe's
/// hash is scaled to the table by a multiplication, so the size need not be a power of two
/// (which could hold nearly twice the memory asked for).
struct BloomFilter: Sendable {
    private var words: [UInt64]
    private let bits: UInt64
    /// Bits set so far: the false "maybe" rate is about `fill` to the power `probes`.
    private(set) var setBits = 0
    private static let probes: UInt64 = 6

    /// Room for `capacity` keys at 16 bits a key (rounded up to a whole word): a false "maybe"
    /// for at most about 1 in 1,000 unknown keys when full, 1 in 50 once twice as many keys
    /// went in (6 probes: (1 − e^(−6n/m))^6).
    init(capacity: Int) {
        let count = max(1, (max(1, capacity) * 16 + 63) / 64)
        words = Array(repeating: 0, count: count)
        bits = UInt64(count * 64)
    }

    var bitCount: Int { words.count * 64 }

    /// The share of bits set, from 0 to 1.
    var fill: Double { Double(setBits) / Double(bitCount) }

    // Double hashing: probe i is h1 + i·h2, scaled to the table (the high word of probe × bits).

    mutating func insert(_ hash: KeyHash) {
        var probe = hash.first
        for _ in 0..<Self.probes {
            let index = probe.multipliedFullWidth(by: bits).high
            let (word, bit) = (Int(index >> 6), UInt64(1) << (index & 63))
            if words[word] & bit == 0 {
                words[word] |= bit
                setBits += 1
            }
            probe &+= hash.second | 1
        }
    }

    func mightContain(_ hash: KeyHash) -> Bool {
        var probe = hash.first
        for _ in 0..<Self.probes {
            let index = probe.multipliedFullWidth(by: bits).high
            if words[Int(index >> 6)] & (UInt64(1) << (index & 63)) == 0 { return false }
            probe &+= hash.second | 1
        }
        return true
    }
}

/// Two independent 64-bit hashes of a key, computed once and probed in any filter.
struct KeyHash: Sendable, Hashable {
    let first: UInt64
    let second: UInt64

    /// FNV-1a over the tag and the value, then two different finalisers (MurmurHash3's), so
    /// neighbouring keys ("SKU-1", "SKU-2") scatter.
    init(tag: UInt8, value: String) {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func add(_ byte: UInt8) { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        add(tag)
        for byte in value.utf8 { add(byte) }
        first = Self.mix(hash)
        second = Self.mix(hash ^ 0x9E37_79B9_7F4A_7C15)
    }

    private static func mix(_ value: UInt64) -> UInt64 {
        var value = value
        value ^= value >> 33
        value &*= 0xff51_afd7_ed55_8ccd
        value ^= value >> 33
        value &*= 0xc4ce_b9fe_1a85_ec53
        value ^= value >> 33
        return value
    }
}
