package import CPCSCLite

/// One pcsc-lite context: the blocking calls the monitor thread makes, in Swift.
/// Only `cancel()` may be called from another thread (pcsc-lite allows exactly that).
package struct PCSCContext: Sendable {
    package let handle: SCARDCONTEXT

    /// The name of the pseudo-reader whose state changes when readers come and go.
    package static let plugAndPlayReader = #"\\?PnP?\Notification"#

    package static func establish() throws(PCSCError) -> PCSCContext {
        var handle: SCARDCONTEXT = 0
        try PCSCError.check(SCardEstablishContext(DWORD(SCARD_SCOPE_SYSTEM), nil, nil, &handle))
        return PCSCContext(handle: handle)
    }

    /// Reader names as pcscd lists them; empty when none is attached.
    package func readerNames() throws(PCSCError) -> [String] {
        var size: DWORD = 0
        var code = SCardListReaders(handle, nil, nil, &size)
        if code == Int(SCARD_E_NO_READERS_AVAILABLE) { return [] }
        try PCSCError.check(code)
        var buffer = [CChar](repeating: 0, count: Int(size) + 1)
        code = SCardListReaders(handle, nil, &buffer, &size)
        if code == Int(SCARD_E_NO_READERS_AVAILABLE) { return [] }
        try PCSCError.check(code)
        // A multi-string: names separated by NUL, ended by an empty name.
        return buffer.split(separator: 0).map { chars in
            String(decoding: chars.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    /// Blocks until a state in `states` differs from its `dwCurrentState`, or `milliseconds` pass.
    package func waitForChange(_ states: inout [SCARD_READERSTATE], milliseconds: UInt32) -> Int {
        states.withUnsafeMutableBufferPointer { buffer in
            SCardGetStatusChange(handle, DWORD(milliseconds), buffer.baseAddress, DWORD(buffer.count))
        }
    }

    /// Wakes a `waitForChange` blocked on another thread with SCARD_E_CANCELLED.
    package func cancel() {
        _ = SCardCancel(handle)
    }

    package func release() {
        _ = SCardReleaseContext(handle)
    }
}
