/// The text encoding of an import file: UTF-8 (with or without a byte order mark), or
/// Windows-1252, which Excel writes when it saves "CSV" on a Western European Windows.
public enum ImportEncoding: String, Sendable, Hashable, CaseIterable {
    case utf8 = "utf-8"
    case windows1252 = "windows-1252"

    /// `utf-8`/`utf8`, `windows-1252`/`cp1252`; as `--encoding` takes them.
    public init?(argument: String) {
        switch argument.lowercased() {
        case "utf-8", "utf8": self = .utf8
        case "windows-1252", "cp1252", "win1252": self = .windows1252
        default: return nil
        }
    }
}

/// Turns an import file's bytes into UTF-8 as they stream, chunk by chunk.
///
/// Given no encoding, it detects one without holding the file: ASCII reads the same in
/// both, so the choice waits for the first byte above 0x7F and is made on the chunk that
/// holds it: when those bytes are valid UTF-8, the file is UTF-8; otherwise it is
/// Windows-1252. A Windows-1252 file is hardly ever valid UTF-8 by chance (an accented
/// letter would have to be followed by exactly the right symbols). Once UTF-8 is chosen,
/// a later row that is not valid UTF-8 is reported by its line and skipped by the CSV reader
/// (it says to give `--encoding windows-1252`), so nothing is stored wrongly or lost silently.
public struct ImportTextDecoder: Sendable {
    /// The encoding in use: the one given, or the one detected (nil while only ASCII was seen).
    public private(set) var encoding: ImportEncoding?

    public init(encoding: ImportEncoding?) {
        self.encoding = encoding
    }

    /// Bytes held back while undecided: a sequence the chunk's end cut off, which alone
    /// cannot tell the encodings apart.
    private var carry: [UInt8] = []

    /// The chunk as UTF-8.
    public mutating func decode(_ chunk: [UInt8]) -> [UInt8] {
        var bytes = chunk
        if encoding == nil {
            if !carry.isEmpty {
                bytes = carry + chunk
                carry = []
            }
            if let first = bytes.firstIndex(where: { $0 >= 0x80 }) {
                let tail = Self.truncatedTail(bytes)
                if first >= bytes.count - tail, tail > 0 {
                    carry = Array(bytes.suffix(tail))
                    return Array(bytes.dropLast(tail))
                }
                encoding = Self.isUTF8(bytes[first...]) ? .utf8 : .windows1252
            }
        }
        guard encoding == .windows1252 else { return bytes }
        return Self.windows1252ToUTF8(bytes)
    }

    /// The input ended: what was held back, as UTF-8. A sequence cut off by the end of the
    /// file is no UTF-8, so it is read as Windows-1252.
    public mutating func finish() -> [UInt8] {
        guard !carry.isEmpty else { return [] }
        defer { carry = [] }
        encoding = encoding ?? .windows1252
        return encoding == .windows1252 ? Self.windows1252ToUTF8(carry) : carry
    }

    /// How many bytes at the end start a UTF-8 sequence they do not complete (0 to 3).
    static func truncatedTail(_ bytes: [UInt8]) -> Int {
        guard !bytes.isEmpty else { return 0 }
        for back in 1...min(3, bytes.count) {
            let byte = bytes[bytes.count - back]
            guard (0x80...0xBF).contains(byte) else {
                let length =
                    switch byte {
                    case 0xC2...0xDF: 2
                    case 0xE0...0xEF: 3
                    case 0xF0...0xF4: 4
                    default: 0
                    }
                return length > back ? back : 0
            }
        }
        return 0
    }

    /// Whether `bytes` are valid UTF-8, allowing a sequence cut off at the end (the rest is
    /// in the next chunk).
    static func isUTF8(_ bytes: ArraySlice<UInt8>) -> Bool {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let lead = bytes[index]
            let length: Int
            switch lead {
            case 0x00...0x7F: length = 1
            case 0xC2...0xDF: length = 2
            case 0xE0...0xEF: length = 3
            case 0xF0...0xF4: length = 4
            default: return false
            }
            let end = index + length
            let available = bytes[index..<min(end, bytes.endIndex)]
            guard String(validating: available, as: UTF8.self) != nil || isTruncatedPrefix(available, length: length)
            else { return false }
            index = end
        }
        return true
    }

    /// A valid start of a `length`-byte sequence that the chunk's end cut off.
    private static func isTruncatedPrefix(_ bytes: ArraySlice<UInt8>, length: Int) -> Bool {
        bytes.count < length && bytes.dropFirst().allSatisfy { (0x80...0xBF).contains($0) }
    }

    /// Windows-1252 as UTF-8: every byte maps to one character (the WHATWG table, where the
    /// five bytes Microsoft left undefined map to the C1 controls of the same value).
    static func windows1252ToUTF8(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + bytes.count / 8)
        for byte in bytes {
            if byte < 0x80 {
                out.append(byte)
                continue
            }
            let scalar = byte < 0xA0 ? high[Int(byte - 0x80)] : UInt32(byte)
            out.append(contentsOf: String(Unicode.Scalar(scalar) ?? "\u{FFFD}").utf8)
        }
        return out
    }

    /// The characters of bytes 0x80…0x9F.
    private static let high: [UInt32] = [
        0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D,
        0x017D, 0x008F, 0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A,
        0x0153, 0x009D, 0x017E, 0x0178,
    ]
}
