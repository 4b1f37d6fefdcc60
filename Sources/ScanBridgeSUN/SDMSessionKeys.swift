public import ScanBridgeCodes

/// The session keys of one SUN message (NXP AN12196, "SDM Session Key Generation"): CMACs,
/// under the SDM file read key, of the session vectors SV1 (`C3 3C 00 01 00 80`, for the
/// file data's encryption) and SV2 (`3C C3 00 01 00 80`, for the SDMMAC), each followed by
/// the mirrored UID and read counter and zero-padded to whole blocks. A new counter makes
/// new keys, so each read's MAC is its own.
public struct SDMSessionKeys: Sendable {
    /// KSesSDMFileReadENC.
    public let encryption: AESKey
    /// KSesSDMFileReadMAC.
    public let mac: AESKey

    static let sv1Label: [UInt8] = [0xC3, 0x3C, 0x00, 0x01, 0x00, 0x80]
    static let sv2Label: [UInt8] = [0x3C, 0xC3, 0x00, 0x01, 0x00, 0x80]

    public init(fileReadKey: AESKey, picc: PICCData) throws(SUNError) {
        encryption = try AESKey(AES128.cmac(fileReadKey, Self.vector(Self.sv1Label, picc)))
        mac = try AESKey(AES128.cmac(fileReadKey, Self.vector(Self.sv2Label, picc)))
    }

    /// A session vector: its label, the UID and counter, zeros to the end of the block.
    static func vector(_ label: [UInt8], _ picc: PICCData) -> [UInt8] {
        var vector = label + picc.sessionVectorData
        vector += [UInt8](repeating: 0, count: (AES128.blockSize - vector.count % AES128.blockSize) % AES128.blockSize)
        return vector
    }

    /// SDMMAC: the CMAC of the MAC input under KSesSDMFileReadMAC, truncated to its 8 odd
    /// bytes (the 2nd, 4th… 16th), as NTAG 424 DNA truncates every MAC.
    public func sdmmac(of input: [UInt8]) throws(SUNError) -> [UInt8] {
        let full = try AES128.cmac(mac, input)
        return stride(from: 1, to: full.count, by: 2).map { full[$0] }
    }

    /// SDMENCFileData decrypted: AES-128 CBC under KSesSDMFileReadENC, its IV the encryption
    /// of the read counter and 13 zeros.
    public func decryptFileData(_ encrypted: [UInt8], picc: PICCData) throws(SUNError) -> [UInt8] {
        guard let counter = picc.readCounterBytes else {
            throw SUNError("file data is encrypted under the read counter, which the tag does not mirror")
        }
        let iv = try AES128.encryptECB(encryption, counter + [UInt8](repeating: 0, count: 13))
        return try AES128.decryptCBC(encryption, iv: iv, encrypted)
    }
}
