import Foundation
import Synchronization

/// An NTAG 424 DNA with Secure Unique NFC on, for the PC/SC tests: each tap is the tag with
/// its read counter one higher and a fresh message in its NDEF URL, as the tag mirrors one
/// into every read. The message is computed by `VirtualNTAG424.signer`, a Python program on
/// python3-cryptography (OpenSSL's AES through another binding, and NXP AN12196's and
/// AN10922's steps written again from the notes, not from ScanBridgeSUN): a test double that
/// shared the daemon's code would agree with its mistakes.
package final class VirtualNTAG424: Sendable {
    /// How the tag's SDM file read key is made.
    package enum FileReadKey: Sendable {
        /// The same on every tag.
        case fixed(String)
        /// Diversified from a master key and the UID (AN10922), then `suffix` (hex).
        case diversified(master: String, suffix: String = "")
    }

    /// The tag's real UID, the one inside its messages.
    package let uid: [UInt8]
    /// Hex keys, as a keys file gives them.
    package let metaReadKey: String
    package let fileReadKey: FileReadKey
    /// The NDEF URL without its `https://`, with `{picc}` and `{cmac}` where the message goes.
    package let template: String
    /// The UID the tag answers anticollision with, when it is not the real one (a random ID).
    package let anticollisionUID: [UInt8]?
    private let counter: Mutex<Int>

    package init(
        uid: [UInt8], metaReadKey: String, fileReadKey: FileReadKey,
        template: String = "shop.example/tap?picc_data={picc}&cmac={cmac}", anticollisionUID: [UInt8]? = nil,
        counter: Int = 0
    ) {
        self.uid = uid
        self.metaReadKey = metaReadKey
        self.fileReadKey = fileReadKey
        self.template = template
        self.anticollisionUID = anticollisionUID
        self.counter = Mutex(counter)
    }

    /// The tag as it is at its next tap: the counter one higher, the message made for it.
    package func nextTap() async throws -> (card: VirtualCard, url: String) {
        let count = counter.withLock { counter in
            counter += 1
            return counter
        }
        let url = try await Self.sign(
            uid: uid, counter: count, metaReadKey: metaReadKey, fileReadKey: fileReadKey, template: template)
        return (card(url: url), "https://" + url)
    }

    /// The tag showing `url` (with or without `https://`), e.g. a message seen before: a replay.
    package func card(url: String) -> VirtualCard {
        let bare = url.hasPrefix("https://") ? String(url.dropFirst(8)) : url
        return VirtualCard.type4(uid: anticollisionUID ?? uid, ndef: VirtualCard.ndefURI(bare))
    }

    /// Runs the signer (waited for off the cooperative pool); its answer is the URL with the message in place.
    static func sign(uid: [UInt8], counter: Int, metaReadKey: String, fileReadKey: FileReadKey, template: String)
        async throws -> String
    {
        let (mode, key, suffix) =
            switch fileReadKey {
            case .fixed(let key): ("fixed", key, "")
            case .diversified(let master, let suffix): ("master", master, suffix)
            }
        let child = try DirectChild(command: [
            "/usr/bin/python3", "-c", signer, uid.map { String(format: "%02X", $0) }.joined(), String(counter), metaReadKey,
            mode, key, suffix.isEmpty ? "-" : suffix, template,
        ])
        // Its output and its errors share one file: a traceback when it fails, the URL otherwise.
        let status = try await child.finish(timeout: .seconds(30))
        guard status == 0 else {
            throw Failure(description: "the NTAG 424 signer failed (python3-cryptography missing?): \(child.errors)")
        }
        return child.errors.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// NXP AN12196 (SUN message, AES mode, UID and counter mirrored, no file data) and AN10922.
    /// argv: UID hex, counter, meta read key, "fixed" or "master", that key, suffix hex or "-", template.
    static let signer = #"""
        import os, sys
        from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
        from cryptography.hazmat.primitives.cmac import CMAC

        def cmac(key, data):
            mac = CMAC(algorithms.AES(key))
            mac.update(data)
            return mac.finalize()

        uid_hex, counter, meta_hex, mode, key_hex, suffix_hex, template = sys.argv[1:8]
        uid = bytes.fromhex(uid_hex)
        ctr = int(counter).to_bytes(3, "little")
        key = bytes.fromhex(key_hex)
        suffix = b"" if suffix_hex == "-" else bytes.fromhex(suffix_hex)
        # AN10922 AES-128: CMAC of 01 || diversification input under the master key.
        file_key = cmac(key, b"\x01" + uid + suffix) if mode == "master" else key
        # PICCDataTag C7: UID and counter mirrored, 7-byte UID; random padding to the block.
        picc = bytes([0xC7]) + uid + ctr + os.urandom(5)
        encryptor = Cipher(algorithms.AES(bytes.fromhex(meta_hex)), modes.CBC(bytes(16))).encryptor()
        picc_data = encryptor.update(picc) + encryptor.finalize()
        # SV2 = 3C C3 00 01 00 80 || UID || SDMReadCtr: one block, the MAC session key's input.
        session = cmac(file_key, bytes([0x3C, 0xC3, 0x00, 0x01, 0x00, 0x80]) + uid + ctr)
        # SDMMAC over no input (nothing mirrored between the data and the MAC), odd bytes kept.
        full = cmac(session, b"")
        sdmmac = bytes(full[i] for i in range(1, 16, 2))
        print(template.replace("{picc}", picc_data.hex().upper()).replace("{cmac}", sdmmac.hex().upper()))
        """#
}
