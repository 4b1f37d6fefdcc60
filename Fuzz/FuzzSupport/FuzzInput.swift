/// Reads a fuzz input as the choices a target makes (which parser, how to cut the bytes into
/// reads, how much time passes) followed by the data, so one byte string drives both.
public struct FuzzInput {
    private var rest: Slice<UnsafeBufferPointer<UInt8>>

    public init(_ bytes: UnsafeBufferPointer<UInt8>) {
        rest = bytes[...]
    }

    /// Whether every byte is taken.
    public var isEmpty: Bool { rest.isEmpty }

    /// The next byte, or 0 when there is none left.
    public mutating func byte() -> UInt8 {
        rest.popFirst() ?? 0
    }

    /// Up to `count` next bytes.
    public mutating func bytes(_ count: Int) -> [UInt8] {
        let taken = rest.prefix(count)
        rest = rest.dropFirst(taken.count)
        return Array(taken)
    }

    /// What is left, all at once.
    public mutating func remaining() -> [UInt8] {
        defer { rest = rest.suffix(0) }
        return Array(rest)
    }

    /// What is left, as the pieces a stream would deliver it in: each piece's length comes
    /// from one byte of the input (1 to 64), so libFuzzer tries every way to cut a stream.
    public mutating func chunks() -> [[UInt8]] {
        var pieces: [[UInt8]] = []
        while !isEmpty {
            let length = Int(byte() % 64) + 1
            pieces.append(bytes(length))
        }
        return pieces
    }
}
