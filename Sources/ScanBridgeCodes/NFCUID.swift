/// The unique identifier of an NFC card, as the reader reports it in anticollision order.
///
/// Peers disagree on how to print a UID (lowercase contiguous, uppercase dashed, byte
/// reversed…); ScanBridge keeps the bytes and renders the two forms the protocol fixes.
public struct NFCUID: Hashable, Sendable, CustomStringConvertible {
    /// UID lengths a card may have: single (4), double (7), triple (10) size ISO 14443-A,
    /// and 8 bytes for ISO 15693 and FeliCa IDm.
    public static let validLengths: Set<Int> = [4, 7, 8, 10]

    public let bytes: [UInt8]

    public init(bytes: [UInt8]) throws(CodeError) {
        guard Self.validLengths.contains(bytes.count) else {
            throw CodeError("a card UID has 4, 7, 8 or 10 bytes, this one has \(bytes.count)")
        }
        self.bytes = bytes
    }

    /// Parses `04A1B2C3D4E5F6`, `04:a1:b2:…`, `04-A1-…` or `04 A1 …`: hex digits, either
    /// together or in pairs with one kind of separator between every byte.
    public init(parsing text: String) throws(CodeError) {
        // Slices, not new strings: every tap is parsed here, by the reader and by the card's lookup.
        var trimmed = Substring(text)
        while trimmed.first?.isWhitespace == true { trimmed.removeFirst() }
        while trimmed.last?.isWhitespace == true { trimmed.removeLast() }
        guard !trimmed.isEmpty else { throw CodeError("the card UID is empty") }
        let separator = trimmed.first { $0 == ":" || $0 == "-" || $0 == " " }
        let groups = separator.map { trimmed.split(separator: $0, omittingEmptySubsequences: false) } ?? [trimmed]
        let wellFormed = groups.count == 1 || groups.allSatisfy { $0.count == 2 }
        guard wellFormed, let bytes = groups.count == 1 ? Hex.decode(trimmed) : Hex.decode(groups.joined()) else {
            throw CodeError(
                "'\(text)' is not a card UID: use hex digits, e.g. 04A1B2C3D4E5F6 or 04:A1:B2:C3:D4:E5:F6")
        }
        try self.init(bytes: bytes)
    }

    /// Uppercase hex with no separators, e.g. `04A1B2C3D4E5F6`.
    public var hex: String { Hex.encode(bytes) }

    /// Uppercase hex with colons, e.g. `04:A1:B2:C3:D4:E5:F6`.
    public var display: String { bytes.map { Hex.encode([$0]) }.joined(separator: ":") }

    public var description: String { hex }

    /// The air interface a UID of this shape most likely came from, when nothing better is known.
    public var likelySymbology: String {
        switch bytes.count {
        case 8 where bytes.first == 0xE0: "iso15693"
        case 4, 7, 10: "iso14443a"
        default: "unknown"
        }
    }
}
