import CTestSupport
import Foundation
import Glibc

/// A pty standing in for a serial device (`/dev/ttyACM*`): the test holds the master and
/// writes what the device would send; the daemon opens `path`, the slave.
package final class PseudoTerminal: Sendable {
    package let master: Int32
    package let path: String

    package init() throws {
        var name = [CChar](repeating: 0, count: 128)
        master = ctest_open_pty(&name, name.count)
        guard master >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        path = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Writes all of `bytes`; returns how many went.
    @discardableResult
    package func send(_ bytes: [UInt8]) -> Int {
        bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    @discardableResult
    package func send(_ text: String) -> Int { send(Array(text.utf8)) }

    /// The device unplugged: the slave's reads fail with EIO from now on.
    package func close() { Glibc.close(master) }
}
