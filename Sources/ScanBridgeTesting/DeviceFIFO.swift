import CTestSupport
import Foundation
import Glibc

/// A FIFO standing in for a device node (`/dev/input/event*`, `/dev/hidraw*`) that a driver
/// reads as it would the node: the test writes what the device would send.
package final class DeviceFIFO: Sendable {
    package let path: String
    private let folder: URL

    /// A new FIFO in a folder of its own under the temporary directory.
    package init(name: String = "device") throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("fifo-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        path = folder.appendingPathComponent(name).path
        guard mkfifo(path, 0o600) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// Opens the FIFO for writing once a reader has it open, writes all of `bytes`, and
    /// closes it (the reader sees its writer go). The FIFO is first made large enough for the
    /// bytes to go in one write: a writer stalled for longer than a driver's idle time would
    /// end a read in the middle.
    package func write(_ bytes: [UInt8], within seconds: Double = 20) async throws {
        let deadline = ContinuousClock.now + .seconds(seconds)
        let fd = try await waitFor("a reader to open \(path)", timeout: .seconds(seconds)) { () throws -> Int32? in
            let fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC)
            guard fd < 0 else { return fd }
            guard errno == ENXIO else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            return nil  // no reader yet
        }
        defer { close(fd) }
        _ = ctest_set_pipe_size(fd, Int32(min(bytes.count + 4096, 1 << 20)))
        var offset = 0
        try await waitUntil(
            "the reader of \(path) to take \(bytes.count) bytes",
            timeout: max(deadline - ContinuousClock.now, .zero)
        ) {
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
                if written > 0 {
                    offset += written
                    continue
                }
                guard errno == EAGAIN else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
                return false  // full until the reader reads
            }
            return true
        }
    }
}
