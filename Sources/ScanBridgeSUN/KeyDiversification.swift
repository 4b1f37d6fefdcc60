/// AES-128 key diversification of NXP AN10922: a card's own key from a master key and the
/// card's diversification input (its UID, then an application and system identifier), so
/// that one card's key read out of it opens no other card. The CMAC of the constant `01`
/// and the input, under the master key; AN10922's padding and subkey choice are CMAC's own.
public enum KeyDiversification {
    /// The input AN10922 takes for AES-128: 1 to 31 bytes.
    public static let inputLengths = 1...31

    public static func aes128(master: AESKey, input: [UInt8]) throws(SUNError) -> AESKey {
        guard inputLengths.contains(input.count) else {
            throw SUNError("AN10922 diversifies with 1 to 31 bytes of input, not \(input.count)")
        }
        return try AESKey(AES128.cmac(master, [0x01] + input))
    }

    /// The usual input: the UID, then the application and system identifiers.
    public static func aes128(master: AESKey, uid: [UInt8], application: [UInt8] = [], system: [UInt8] = [])
        throws(SUNError) -> AESKey
    {
        try aes128(master: master, input: uid + application + system)
    }
}
