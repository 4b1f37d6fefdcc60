public import ScanBridgeCodes

/// Verifies a Secure Unique NFC message (NXP AN12196, AES mode): decrypts the PICC data
/// with the SDM meta read key, derives the session keys from the card's file read key and
/// checks the SDMMAC; then decrypts mirrored file data. Whether the counter is newer than the
/// last accepted one is the caller's to judge: it alone knows the last one.
public struct SUNVerifier: Sendable {
    /// What a verified message says.
    public struct Verified: Sendable, Hashable {
        public let uid: [UInt8]
        public let readCounter: Int?
        public let fileData: [UInt8]?
    }

    public enum Failure: Error, Sendable, Hashable, CustomStringConvertible {
        /// The PICC data decrypted to no UID: another meta read key, or no SUN message at all.
        case unreadable(String)
        /// No file read key for this card.
        case unknownKey
        /// The SDMMAC is wrong: the message was altered, or made with another key.
        case badMAC

        public var description: String {
            switch self {
            case .unreadable(let why): "the PICC data does not decrypt to a UID (\(why))"
            case .unknownKey: "no SDM file read key for this card"
            case .badMAC: "the SDMMAC does not match"
            }
        }
    }

    let metaReadKey: AESKey
    let fileReadKey: @Sendable (_ uid: [UInt8]) -> AESKey?

    /// - Parameters:
    ///   - metaReadKey: decrypts the PICC data (SDMMetaReadKey).
    ///   - fileReadKey: the card's file read key (SDMFileReadKey) by its UID, often
    ///     diversified from a master key (`KeyDiversification`); nil when the card is unknown.
    public init(metaReadKey: AESKey, fileReadKey: @escaping @Sendable (_ uid: [UInt8]) -> AESKey?) {
        self.metaReadKey = metaReadKey
        self.fileReadKey = fileReadKey
    }

    public func verify(_ message: SUNMessage) -> Result<Verified, Failure> {
        let picc: PICCData
        do {
            picc = try claimedPICCData(message)
        } catch {
            return .failure(.unreadable("\(error)"))
        }
        guard let key = fileReadKey(picc.uid) else { return .failure(.unknownKey) }
        do {
            let session = try SDMSessionKeys(fileReadKey: key, picc: picc)
            guard AES128.macsEqual(try session.sdmmac(of: message.macInput), message.mac) else { return .failure(.badMAC) }
            // File data is encrypted under the counter: without one mirrored it stays unread.
            var fileData: [UInt8]?
            if let encrypted = message.encryptedFileData, picc.readCounterBytes != nil {
                fileData = try session.decryptFileData(encrypted, picc: picc)
            }
            return .success(Verified(uid: picc.uid, readCounter: picc.readCounter, fileData: fileData))
        } catch {
            // Only libcrypto failing gets here; no message is trusted then.
            return .failure(.badMAC)
        }
    }
}

extension SUNVerifier {
    /// The PICC data of a message, decrypted with the meta read key and not yet vouched for by
    /// its MAC: the UID a message claims, to say which card a refused message pretended to be.
    public func claimedPICCData(_ message: SUNMessage) throws(SUNError) -> PICCData {
        // One block under a zero IV: CBC and ECB agree, and CBC is what AN12196 names.
        let plain = try AES128.decryptCBC(
            metaReadKey, iv: [UInt8](repeating: 0, count: AES128.blockSize), message.encryptedPICCData)
        do {
            return try PICCData(decrypted: plain)
        } catch {
            throw SUNError(error.message)
        }
    }
}
