/// NFC Forum Type 4 tags (ISO 14443-4 cards holding the NDEF application: NTAG 424 DNA,
/// DESFire with NDEF, phones emulating a tag): the NDEF application, its capability
/// container and NDEF file, and the ISO 7816-4 commands that read them.
///
/// Everything here is what the tag *claims*; `Type4Tag.Reader` holds those claims to the
/// bounds before it asks for a byte.
public enum Type4Tag {
    /// The NDEF Tag Application's name (mapping version 2.0 and later).
    public static let ndefApplication: [UInt8] = [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01]
    /// The capability container's elementary file.
    public static let capabilityContainerFile: UInt16 = 0xE103
    /// The capability container's first bytes: its length, version, MLe, MLc and the NDEF File Control TLV.
    public static let capabilityContainerHead = 15
    /// The NDEF file starts with the message's length (NLEN), two bytes big-endian.
    public static let lengthFieldSize = 2
    /// A short READ BINARY's offset has 15 bits (bit 8 of P1 set means a short file id instead).
    public static let largestOffset = 0x7FFF
    /// The most a short READ BINARY asks for: `Le` 00 would mean 256, which some readers take for 0.
    public static let largestShortLe = 255

    /// The capability container (NFC Forum T4T, "Capability Container"): how much a
    /// command and a response may carry, and where the NDEF file is and how big it may be.
    public struct CapabilityContainer: Sendable, Hashable {
        /// The mapping version's major number (2 for `0x20`).
        public let majorVersion: Int
        /// MLe: the most data bytes the tag puts in one response.
        public let maxResponseData: Int
        /// MLc: the most data bytes the tag takes in one command.
        public let maxCommandData: Int
        /// The NDEF file's id.
        public let ndefFile: UInt16
        /// The NDEF file's size, its NLEN field included.
        public let maxNDEFFileSize: Int
        /// `00`: anyone may read; anything else (`FF`, or proprietary values) is not read.
        public let readAccess: UInt8
        public let writeAccess: UInt8

        /// Parses the container's first 15 bytes, or says which claim is out of the
        /// specification's ranges: each of those would steer the read (a zero MLe would ask
        /// for nothing for ever, a reserved file id would select the container again).
        public init(bytes: [UInt8]) throws(CodeError) {
            guard bytes.count >= capabilityContainerHead else {
                throw CodeError("a Type 4 capability container has 15 bytes at least; this one \(bytes.count)")
            }
            let containerLength = Self.word(bytes, 0)
            guard containerLength >= capabilityContainerHead else {
                throw CodeError("the capability container says it has \(containerLength) bytes, fewer than 15")
            }
            majorVersion = Int(bytes[2] >> 4)
            guard (2...3).contains(majorVersion) else {
                throw CodeError("mapping version \(bytes[2] >> 4).\(bytes[2] & 0x0F) is not read (2.x and 3.x are)")
            }
            maxResponseData = Self.word(bytes, 3)
            maxCommandData = Self.word(bytes, 5)
            guard maxResponseData >= 0x0F else {
                throw CodeError("MLe \(maxResponseData) is below the 15 bytes every Type 4 tag must answer")
            }
            guard maxCommandData >= 1 else { throw CodeError("MLc 0: the tag would take no command data") }
            // The NDEF File Control TLV; mapping 3.0's extended one (T 06) gives a 4-byte
            // length for files past 64 KiB, which nothing read here is.
            guard bytes[7] == 0x04, bytes[8] == 0x06 else {
                throw CodeError(
                    "the capability container has no NDEF File Control TLV (04 06) but "
                        + Hex.encode(Array(bytes[7...8])))
            }
            ndefFile = UInt16(Self.word(bytes, 9))
            guard Self.isValidFile(ndefFile) else {
                throw CodeError("the NDEF file id \(Hex.encode(Array(bytes[9...10]))) is reserved")
            }
            maxNDEFFileSize = Self.word(bytes, 11)
            guard (0x0005...0xFFFE).contains(maxNDEFFileSize) else {
                throw CodeError("an NDEF file of \(maxNDEFFileSize) bytes is outside 5…65534")
            }
            readAccess = bytes[13]
            writeAccess = bytes[14]
        }

        /// Whether the NDEF file may be read without authentication.
        public var isReadable: Bool { readAccess == 0x00 }

        /// File ids the T4T mapping reserves: none, the container's, the master file's, and 3FFF, FFFF.
        static func isValidFile(_ id: UInt16) -> Bool {
            ![0x0000, 0xE102, 0xE103, 0x3F00, 0x3FFF, 0xFFFF].contains(id)
        }

        static func word(_ bytes: [UInt8], _ at: Int) -> Int {
            Int(bytes[at]) << 8 | Int(bytes[at + 1])
        }
    }

    /// SELECT of the NDEF application by name, first or only occurrence, asking for its FCI.
    public static var selectApplication: [UInt8] {
        [0x00, 0xA4, 0x04, 0x00, UInt8(ndefApplication.count)] + ndefApplication + [0x00]
    }

    /// SELECT of an elementary file by id, without FCI (`P2` 0C), as T4T 2.0 asks.
    public static func selectFile(_ id: UInt16) -> [UInt8] {
        [0x00, 0xA4, 0x00, 0x0C, 0x02, UInt8(id >> 8), UInt8(id & 0xFF)]
    }

    /// READ BINARY of `range` of the selected file; the range must lie within a short command's reach.
    public static func readBinary(_ range: Range<Int>) -> [UInt8] {
        precondition(
            range.lowerBound >= 0 && range.lowerBound <= largestOffset && (1...largestShortLe).contains(range.count),
            "READ BINARY of \(range) is beyond a short command")
        return [0x00, 0xB0, UInt8(range.lowerBound >> 8), UInt8(range.lowerBound & 0xFF), UInt8(range.count)]
    }

    /// The READ BINARY ranges that read `count` bytes from `offset`, none longer than
    /// `chunk`: the pieces of the NDEF message, the last one shorter.
    public static func chunks(from offset: Int, count: Int, chunk: Int) -> [Range<Int>] {
        precondition(chunk > 0 && count >= 0, "chunks of \(chunk) bytes for \(count) bytes")
        return stride(from: offset, to: offset + count, by: chunk).map { $0..<min($0 + chunk, offset + count) }
    }
}
