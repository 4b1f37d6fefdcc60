/// The bytes a streaming parser has been given and not yet consumed, and whether more
/// will come. Both the CSV reader and the JSON splitter keep their input in one.
struct InputBuffer: Sendable {
    private(set) var bytes: [UInt8] = []
    /// The first byte not yet consumed.
    var position = 0
    /// No more bytes will be appended.
    private(set) var isFinished = false
    /// Whether the start of the input was checked for a byte order mark.
    private var checkedByteOrderMark = false

    /// Adds bytes at the end, dropping those already consumed.
    mutating func append(_ chunk: some Sequence<UInt8>) {
        if position == bytes.count {
            bytes.removeAll(keepingCapacity: true)
        } else if position > 0 {
            bytes.removeSubrange(0..<position)
        }
        position = 0
        bytes.append(contentsOf: chunk)
    }

    mutating func finish() {
        isFinished = true
    }

    /// Every byte given is consumed.
    var isExhausted: Bool { position == bytes.count }

    /// What a parser does next: scan the bytes it has, or handle the end of the input.
    enum Step {
        case scan, end
    }

    /// What a parser's `next()` does now; nil when it must wait for more input.
    mutating func step() -> Step? {
        guard skipByteOrderMark() else { return nil }
        if !isExhausted { return .scan }
        return isFinished ? .end : nil
    }

    /// Skips a UTF-8 byte order mark at the very start of the input. False while it cannot
    /// tell yet (fewer than three bytes, all of them a prefix of the mark).
    mutating func skipByteOrderMark() -> Bool {
        guard !checkedByteOrderMark else { return true }
        let mark: [UInt8] = [0xEF, 0xBB, 0xBF]
        let head = bytes[position...].prefix(3)
        if head.elementsEqual(mark) {
            position += 3
        } else if head.count < 3, !isFinished, mark.starts(with: head) {
            return false
        }
        checkedByteOrderMark = true
        return true
    }
}

/// How a parser names a byte in a message: `'x'`, or its code when it is not printable.
func describeByte(_ byte: UInt8) -> String {
    (0x21..<0x7F).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "byte 0x\(String(byte, radix: 16, uppercase: true))"
}
