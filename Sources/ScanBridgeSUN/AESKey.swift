import ScanBridgeCodes

/// An AES-128 key: 16 bytes, never printed. Keys reach logs and errors only as this type's
/// description, which names no byte.
public struct AESKey: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    public static let size = 16
    let bytes: [UInt8]

    public init(_ bytes: [UInt8]) throws(SUNError) {
        guard bytes.count == Self.size else { throw SUNError("an AES-128 key has 16 bytes, not \(bytes.count)") }
        self.bytes = bytes
    }

    private init(checked bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// From 32 hex digits, as a configuration gives it.
    public init(hex: String) throws(SUNError) {
        guard let bytes = Hex.decode(hex) else { throw SUNError("an AES-128 key is 32 hex digits") }
        try self.init(bytes)
    }

    /// NTAG 424 DNA's factory keys: all zero.
    public static let factory = AESKey(checked: [UInt8](repeating: 0, count: size))

    public var description: String { "AESKey(redacted)" }
    /// `dump` and the debugger show no byte either.
    public var customMirror: Mirror { Mirror(self, children: []) }
}
