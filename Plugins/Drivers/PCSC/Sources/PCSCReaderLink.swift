import CPCSCLite
import PCSCKit

/// A connection to a reader itself, not to a card (`SCARD_SHARE_DIRECT`): for reader commands
/// when no card is on it, sent as a CCID escape with `SCardControl`.
struct PCSCReaderLink: ~Copyable {
    private let handle: SCARDHANDLE

    /// libccid's escape (`IOCTL_SMARTCARD_VENDOR_IFD_EXCHANGE`): `SCARD_CTL_CODE(1)` in
    /// pcsc-lite's numbering. Windows calls it `IOCTL_CCID_ESCAPE`, `SCARD_CTL_CODE(3500)` in
    /// its own numbering, which pcsc-lite does not share. libccid passes it on only when
    /// `ifdDriverOptions` has bit 0x01 (in libccid_Info.plist).
    static let escapeCode = cpcsc_ctl_code(1)

    init(context: PCSCContext, reader: String) throws(PCSCError) {
        var handle: SCARDHANDLE = 0
        var proto: DWORD = 0
        try PCSCError.check(SCardConnect(context.handle, reader, DWORD(SCARD_SHARE_DIRECT), 0, &handle, &proto))
        self.handle = handle
    }

    deinit {
        _ = SCardDisconnect(handle, DWORD(SCARD_LEAVE_CARD))
    }

    /// Sends `command` through the escape; returns the reader's answer.
    func escape(_ command: [UInt8]) throws(PCSCError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 258)
        var length: DWORD = 0
        let code = SCardControl(handle, Self.escapeCode, command, DWORD(command.count), &buffer, DWORD(buffer.count), &length)
        try PCSCError.check(code)
        return Array(buffer.prefix(min(Int(length), buffer.count)))
    }
}
