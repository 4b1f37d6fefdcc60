package import CPCSCLite
import Foundation

/// What pcscd says right now, for `scanbridge doctor`: whether it answers, and each reader
/// with its state. Every call blocks: run `probe()` off the cooperative pool.
package struct PCSCProbe: Sendable {
    /// One reader as pcscd lists it, with the flags of its current state.
    package struct Reader: Sendable, Hashable {
        package let name: String
        /// `present`, `empty`, `exclusive`, `in use`, `mute`, `unpowered`, `unavailable`, `unknown`.
        package let state: [String]
        package let atr: [UInt8]
    }

    /// The socket libpcsclite connects to: `PCSCLITE_CSOCK_NAME`, else pcsc-lite's default.
    package let socketPath: String
    /// Why pcscd did not answer (its error code), nil when it did.
    package let failure: String?
    package let readers: [Reader]

    package var answers: Bool { failure == nil }

    package static func socketPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        environment["PCSCLITE_CSOCK_NAME"].flatMap { $0.isEmpty ? nil : $0 } ?? "/run/pcscd/pcscd.comm"
    }

    /// Asks pcscd (blocking, and at once: no wait for a change).
    package static func probe() -> PCSCProbe {
        let socket = socketPath()
        let context: PCSCContext
        do {
            context = try PCSCContext.establish()
        } catch {
            return PCSCProbe(socketPath: socket, failure: "\(error)", readers: [])
        }
        defer { context.release() }
        do {
            return PCSCProbe(socketPath: socket, failure: nil, readers: try states(of: context.readerNames(), in: context))
        } catch {
            return PCSCProbe(socketPath: socket, failure: "listing readers failed: \(error)", readers: [])
        }
    }

    private static func states(of names: [String], in context: PCSCContext) throws(PCSCError) -> [Reader] {
        guard !names.isEmpty else { return [] }
        let cNames = names.map { strdup($0)! }
        defer { for name in cNames { free(name) } }
        // pcsc-lite takes at most 16 states a call.
        var readers: [Reader] = []
        for chunk in stride(from: 0, to: cNames.count, by: Int(PCSCLITE_MAX_READERS_CONTEXTS)) {
            var states = cNames[chunk..<min(chunk + Int(PCSCLITE_MAX_READERS_CONTEXTS), cNames.count)].map { name in
                var state = SCARD_READERSTATE()
                state.szReader = UnsafePointer(name)
                state.dwCurrentState = DWORD(SCARD_STATE_UNAWARE)
                return state
            }
            let code = context.waitForChange(&states, milliseconds: 0)
            if code != Int(SCARD_E_TIMEOUT) { try PCSCError.check(code) }
            for (offset, state) in states.enumerated() {
                let atr = withUnsafeBytes(of: state.rgbAtr) { Array($0.prefix(min(Int(state.cbAtr), Int(MAX_ATR_SIZE)))) }
                readers.append(Reader(name: names[chunk + offset], state: flags(state.dwEventState), atr: atr))
            }
        }
        return readers
    }

    package static func flags(_ event: DWORD) -> [String] {
        let names: [(Int32, String)] = [
            (SCARD_STATE_PRESENT, "present"), (SCARD_STATE_EMPTY, "empty"), (SCARD_STATE_EXCLUSIVE, "exclusive"),
            (SCARD_STATE_INUSE, "in use"), (SCARD_STATE_MUTE, "mute"), (SCARD_STATE_UNPOWERED, "unpowered"),
            (SCARD_STATE_UNAVAILABLE, "unavailable"), (SCARD_STATE_UNKNOWN, "unknown"),
        ]
        return names.filter { event & DWORD($0.0) != 0 }.map(\.1)
    }
}
