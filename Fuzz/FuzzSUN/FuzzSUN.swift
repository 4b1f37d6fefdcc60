import FuzzSupport
import ScanBridgeCodes
import ScanBridgeSUN

/// What an NTAG 424 DNA's NDEF URL carries, the first byte choosing how far it goes: the URL
/// read into a SUN message, PICC data read from a decrypted block, or the whole verification
/// with the factory keys (libcrypto's AES and CMAC). A URL gives a message or a `CodeError`,
/// a message a verified UID or a failure, never a crash; the MAC input is a part of the URL.
enum FuzzSUN: FuzzTarget {
    static let verifier = SUNVerifier(metaReadKey: .factory) { _ in .factory }

    static func test(_ bytes: UnsafeBufferPointer<UInt8>) {
        var input = FuzzInput(bytes)
        let choice = input.byte()
        let data = input.remaining()
        switch choice % 3 {
        case 0: _ = try? PICCData(decrypted: data)
        default:
            let url = String(decoding: data, as: UTF8.self)
            guard let message = try? SUNMessage(url: url) else { return }
            fuzzCheck(message.macInput.count <= url.utf8.count, "a MAC input longer than its URL")
            fuzzCheck(
                message.encryptedPICCData.count == 16 && message.mac.count == 8, "a message of other lengths than AES mode's")
            guard choice % 3 == 2, case .success(let verified) = verifier.verify(message) else { return }
            fuzzCheck(verified.uid.count == PICCData.uidLength, "a verified UID of \(verified.uid.count) bytes")
        }
    }
}
