/// A Secure Unique NFC message as an NTAG 424 DNA mirrors it into its NDEF URL (NXP AN12196):
/// the encrypted PICC data, the SDMMAC, and the encrypted file data when the tag mirrors
/// some. Only the URL's reading is here; decryption and the MAC are `ScanBridgeSUN`'s, with
/// the keys.
///
/// The parameters are found by name (`picc_data`/`e`, `cmac`/`c`, `enc`), each at most once
/// (two values would leave the choice of which one was MACed to whoever wrote the URL).
public struct SUNMessage: Sendable, Hashable {
    /// PICCENCData: AES-128 mode, one block.
    public let encryptedPICCData: [UInt8]
    /// SDMMAC: the 8 odd bytes of the CMAC.
    public let mac: [UInt8]
    /// SDMENCFileData, whole blocks, when the tag mirrors encrypted file data.
    public let encryptedFileData: [UInt8]?
    /// The URL's bytes the SDMMAC covers: from the file data's value to the MAC's value when
    /// file data is mirrored (`<enc>&cmac=`, AN12196's layout for it), otherwise none.
    public let macInput: [UInt8]

    /// The names each field goes by; the first of each list is NXP's example's.
    public static let piccParameters = ["picc_data", "e"]
    public static let macParameters = ["cmac", "c"]
    public static let fileDataParameters = ["enc"]
    /// Encrypted file data mirrored into a URL read here: NTAG 424 DNA's NDEF file has 256 bytes.
    public static let largestFileData = 128

    /// Reads the message from a URL (an NDEF `U` record's value); throws when a part is
    /// missing, repeated, not hex, or of another length than AES mode gives.
    ///
    /// A shop whose tags are set up with other names gives them (`piccNames`, `macNames`).
    public init(
        url: String, piccNames: [String] = piccParameters, macNames: [String] = macParameters
    ) throws(CodeError) {
        let bytes = Array(url.utf8)
        let parameters = try Self.parameters(in: bytes)
        guard let picc = try Self.value(of: piccNames, in: parameters, bytes) else {
            throw CodeError("the URL has no PICC data (\(piccNames.joined(separator: " or ")))")
        }
        guard let mac = try Self.value(of: macNames, in: parameters, bytes) else {
            throw CodeError("the URL has no SDMMAC (\(macNames.joined(separator: " or ")))")
        }
        encryptedPICCData = try Self.hex(picc, in: bytes, named: "the PICC data", lengths: [16])
        self.mac = try Self.hex(mac, in: bytes, named: "the SDMMAC", lengths: [8])
        if let file = try Self.value(of: Self.fileDataParameters, in: parameters, bytes) {
            encryptedFileData = try Self.hex(
                file, in: bytes, named: "the file data", lengths: Set(stride(from: 16, through: Self.largestFileData, by: 16)))
            guard file.lowerBound < mac.lowerBound else { throw CodeError("the file data comes after the SDMMAC it is under") }
            macInput = Array(bytes[file.lowerBound..<mac.lowerBound])
        } else {
            encryptedFileData = nil
            macInput = []
        }
    }

    /// `url` without the parameters named `names` (the message's), for what is shown and kept:
    /// the encrypted data is no one's to see, and a message not yet accepted could be replayed.
    public static func removing(_ names: Set<String>, from url: String) -> String {
        let bytes = Array(url.utf8)
        let end = bytes.firstIndex(of: UInt8(ascii: "#")) ?? bytes.count
        guard let question = bytes.firstIndex(of: UInt8(ascii: "?")), question < end else { return url }
        var kept: [String] = []
        var start = question + 1
        // Every field in order, those without '=' too; only the named ones go.
        while start <= end {
            let stop = bytes[start..<end].firstIndex(of: UInt8(ascii: "&")) ?? end
            let field = String(decoding: bytes[start..<stop], as: UTF8.self)
            let name = field.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init)
            if !field.isEmpty, !(name.map(names.contains) ?? false) { kept.append(field) }
            start = stop + 1
        }
        let base = String(decoding: bytes[..<question], as: UTF8.self)
        let fragment = String(decoding: bytes[end...], as: UTF8.self)
        return base + (kept.isEmpty ? "" : "?" + kept.joined(separator: "&")) + fragment
    }

    /// The query's parameters: name and the range of its value in the URL's bytes.
    static func parameters(in bytes: [UInt8]) throws(CodeError) -> [(name: String, value: Range<Int>)] {
        guard let question = bytes.firstIndex(of: UInt8(ascii: "?")) else { throw CodeError("the URL has no query") }
        let end = bytes.firstIndex(of: UInt8(ascii: "#")) ?? bytes.count
        guard question < end else { throw CodeError("the URL has no query") }
        var parameters: [(name: String, value: Range<Int>)] = []
        var start = question + 1
        while start <= end {
            let stop = bytes[start..<end].firstIndex(of: UInt8(ascii: "&")) ?? end
            let field = start..<stop
            if let equals = bytes[field].firstIndex(of: UInt8(ascii: "=")) {
                parameters.append((String(decoding: bytes[start..<equals], as: UTF8.self), equals + 1..<stop))
            }
            start = stop + 1
        }
        return parameters
    }

    /// The one value among `names`; nil when none is there.
    static func value(
        of names: [String], in parameters: [(name: String, value: Range<Int>)], _ bytes: [UInt8]
    ) throws(CodeError) -> Range<Int>? {
        let found = parameters.filter { names.contains($0.name) }
        guard found.count <= 1 else { throw CodeError("the URL gives \(names.joined(separator: " or ")) more than once") }
        return found.first?.value
    }

    static func hex(_ range: Range<Int>, in bytes: [UInt8], named name: String, lengths: Set<Int>) throws(CodeError) -> [UInt8] {
        guard let decoded = Hex.decode(String(decoding: bytes[range], as: UTF8.self)) else {
            throw CodeError("\(name) is not hex")
        }
        guard lengths.contains(decoded.count) else {
            throw CodeError(
                "\(name) has \(decoded.count) bytes; AES mode gives \(lengths.sorted().map(String.init).joined(separator: ", "))")
        }
        return decoded
    }
}
