import CPCSCLite

/// A pcsc-lite return code that is not success, with its name for the log.
package struct PCSCError: Error, CustomStringConvertible, Equatable {
    package let code: Int

    package init(_ code: Int) { self.code = code }

    /// The context is dead: pcscd stopped, restarted, or speaks another protocol version.
    /// Only a new context helps: the old one's connection to pcscd is gone for good.
    package var lostContext: Bool {
        [Int(SCARD_F_COMM_ERROR), Int(SCARD_E_NO_SERVICE), Int(SCARD_E_SERVICE_STOPPED), Int(SCARD_E_INVALID_HANDLE)]
            .contains(code)
    }

    package var description: String {
        let name = Self.names[code] ?? "error"
        return "\(name) (0x\(String(UInt32(truncatingIfNeeded: code), radix: 16, uppercase: true)))"
    }

    package static let names: [Int: String] = [
        Int(SCARD_E_CANCELLED): "SCARD_E_CANCELLED", Int(SCARD_E_INVALID_HANDLE): "SCARD_E_INVALID_HANDLE",
        Int(SCARD_E_UNKNOWN_READER): "SCARD_E_UNKNOWN_READER", Int(SCARD_E_TIMEOUT): "SCARD_E_TIMEOUT",
        Int(SCARD_E_SHARING_VIOLATION): "SCARD_E_SHARING_VIOLATION", Int(SCARD_E_NO_SMARTCARD): "SCARD_E_NO_SMARTCARD",
        Int(SCARD_F_COMM_ERROR): "SCARD_F_COMM_ERROR", Int(SCARD_E_READER_UNAVAILABLE): "SCARD_E_READER_UNAVAILABLE",
        Int(SCARD_E_NO_SERVICE): "SCARD_E_NO_SERVICE", Int(SCARD_E_SERVICE_STOPPED): "SCARD_E_SERVICE_STOPPED",
        Int(SCARD_E_NO_READERS_AVAILABLE): "SCARD_E_NO_READERS_AVAILABLE",
        Int(SCARD_W_UNRESPONSIVE_CARD): "SCARD_W_UNRESPONSIVE_CARD",
        Int(SCARD_W_UNPOWERED_CARD): "SCARD_W_UNPOWERED_CARD", Int(SCARD_W_RESET_CARD): "SCARD_W_RESET_CARD",
        Int(SCARD_W_REMOVED_CARD): "SCARD_W_REMOVED_CARD", Int(SCARD_E_INVALID_VALUE): "SCARD_E_INVALID_VALUE",
        Int(SCARD_E_INSUFFICIENT_BUFFER): "SCARD_E_INSUFFICIENT_BUFFER", Int(SCARD_E_PROTO_MISMATCH): "SCARD_E_PROTO_MISMATCH",
        Int(SCARD_E_NOT_TRANSACTED): "SCARD_E_NOT_TRANSACTED",
    ]

    /// Throws unless `code` is SCARD_S_SUCCESS.
    package static func check(_ code: Int) throws(PCSCError) {
        guard code == Int(SCARD_S_SUCCESS) else { throw PCSCError(code) }
    }
}
