import CLibCrypto

/// AES-128 and AES-CMAC from OpenSSL's libcrypto (EVP), through `CLibCrypto`'s shim: the
/// ciphers of the SUN messages are the vetted library's, never code of ours.
public enum AES128 {
    public static let blockSize = 16

    /// AES-128 ECB encryption of whole blocks.
    public static func encryptECB(_ key: AESKey, _ blocks: [UInt8]) throws(SUNError) -> [UInt8] {
        try cipher(encrypt: true, cbc: false, key, iv: nil, blocks)
    }

    /// AES-128 CBC decryption of whole blocks, without padding.
    public static func decryptCBC(_ key: AESKey, iv: [UInt8], _ blocks: [UInt8]) throws(SUNError) -> [UInt8] {
        guard iv.count == blockSize else { throw SUNError("a CBC IV has 16 bytes, not \(iv.count)") }
        return try cipher(encrypt: false, cbc: true, key, iv: iv, blocks)
    }

    /// The AES-CMAC (NIST SP 800-38B) of `message`, 16 bytes.
    public static func cmac(_ key: AESKey, _ message: [UInt8]) throws(SUNError) -> [UInt8] {
        var mac = [UInt8](repeating: 0, count: blockSize)
        let ok = key.bytes.withUnsafeBufferPointer { key in
            message.withUnsafeBufferPointer { input in
                mac.withUnsafeMutableBufferPointer { output in
                    scanbridge_aes128_cmac(key.baseAddress, input.baseAddress, input.count, output.baseAddress)
                }
            }
        }
        guard ok == 1 else { throw SUNError("libcrypto's AES-CMAC failed") }
        return mac
    }

    /// Whether two MACs are equal, in time that does not depend on where they differ.
    public static func macsEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return a.withUnsafeBytes { a in b.withUnsafeBytes { b in CRYPTO_memcmp(a.baseAddress, b.baseAddress, a.count) == 0 } }
    }

    private static func cipher(
        encrypt: Bool, cbc: Bool, _ key: AESKey, iv: [UInt8]?, _ input: [UInt8]
    ) throws(SUNError) -> [UInt8] {
        guard input.count % blockSize == 0 else { throw SUNError("AES takes whole 16-byte blocks, not \(input.count) bytes") }
        guard !input.isEmpty else { return [] }
        var output = [UInt8](repeating: 0, count: input.count)
        let iv = iv ?? [UInt8](repeating: 0, count: blockSize)
        let ok = key.bytes.withUnsafeBufferPointer { key in
            iv.withUnsafeBufferPointer { iv in
                input.withUnsafeBufferPointer { input in
                    output.withUnsafeMutableBufferPointer { output in
                        scanbridge_aes128(
                            encrypt ? 1 : 0, cbc ? 1 : 0, key.baseAddress, iv.baseAddress, input.baseAddress, input.count,
                            output.baseAddress)
                    }
                }
            }
        }
        guard ok == 1 else { throw SUNError("libcrypto's AES-128 failed") }
        return output
    }
}
