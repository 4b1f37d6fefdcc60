import CPCSCLite

/// A connection to the card on one reader, for the pseudo-APDUs of PC/SC Part 3.
package struct PCSCCard: ~Copyable {
    private let handle: SCARDHANDLE
    private let pci: UnsafePointer<SCARD_IO_REQUEST>

    /// Connects in shared mode, so other programs can still use the reader.
    package init(context: PCSCContext, reader: String) throws(PCSCError) {
        var handle: SCARDHANDLE = 0
        var proto: DWORD = 0
        try PCSCError.check(
            SCardConnect(
                context.handle, reader, DWORD(SCARD_SHARE_SHARED), DWORD(SCARD_PROTOCOL_T0 | SCARD_PROTOCOL_T1),
                &handle, &proto))
        self.handle = handle
        self.pci = cpcsc_pci_for(proto)
    }

    deinit {
        _ = SCardDisconnect(handle, DWORD(SCARD_LEAVE_CARD))
    }

    /// A response APDU: data and the status word.
    package struct Response {
        package let data: [UInt8]
        package let status: UInt16
        package var ok: Bool { status == 0x9000 }
        /// The status word as four hex digits, e.g. `6A81`.
        package var statusHex: String {
            let hex = String(status, radix: 16, uppercase: true)
            return String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        }
    }

    package func transmit(_ command: [UInt8]) throws(PCSCError) -> Response {
        var buffer = [UInt8](repeating: 0, count: 258)
        var length = DWORD(buffer.count)
        let code = SCardTransmit(handle, pci, command, DWORD(command.count), nil, &buffer, &length)
        try PCSCError.check(code)
        let count = min(Int(length), buffer.count)
        guard count >= 2 else { return Response(data: [], status: 0) }
        return Response(data: Array(buffer[..<(count - 2)]), status: UInt16(buffer[count - 2]) << 8 | UInt16(buffer[count - 1]))
    }
}
