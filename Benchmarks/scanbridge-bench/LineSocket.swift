import Foundation
import ScanBridgeTesting

/// A Unix-socket connection that writes and reads whole lines with plain system calls, used
/// from threads of the benchmark's own: the leanest client there is, so the socket figures
/// are the daemon's and the socket's, not the client's.
///
/// Why not a SwiftNIO client: its own hops would be timed too (a send hops from the task to
/// the client's event loop, each answer wakes that loop, and the task polls for it), and
/// counted as the daemon's (docs/architecture.md, Design decisions).
///
/// `@unchecked Sendable`: handed to one thread, which alone uses it from then on.
final class LineSocket: @unchecked Sendable {
    let descriptor: Int32
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)
    /// Received bytes not yet returned: `buffer[start..<end]`.
    private var start = 0
    private var end = 0

    init(path: String) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw BenchmarkFailure(description: "socket: \(String(cString: strerror(errno)))") }
        let connected = withUnixSocketAddress(path) { connect(descriptor, $0, $1) }
        guard connected == 0 else {
            close(descriptor)
            throw BenchmarkFailure(
                description: connected == nil
                    ? "socket path too long: \(path)" : "connect to \(path): \(String(cString: strerror(errno)))")
        }
    }

    deinit { close(descriptor) }

    func write(_ bytes: [UInt8]) throws {
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + written, $0.count - written) }
            guard count > 0 else { throw BenchmarkFailure(description: "write: \(String(cString: strerror(errno)))") }
            written += count
        }
    }

    /// The next line, without its newline; blocks until it is in.
    func readLine() throws -> ArraySlice<UInt8> {
        while true {
            if let line = bufferedLine() { return line }
            try receive()
        }
    }

    /// Reads once, blocking until something arrives, and hands over the complete lines in,
    /// each with the time the read returned: after it, so no line read can have been sent later.
    func readLines(_ body: (ArraySlice<UInt8>, UInt64) -> Void) throws {
        try receive()
        let arrived = Nanos.now()
        while let line = bufferedLine() { body(line, arrived) }
    }

    /// Hands over the complete lines that have arrived, without waiting: answers read as they
    /// come, which would otherwise fill the socket until the daemon stopped reading requests.
    func readAvailableLines(_ body: (ArraySlice<UInt8>) -> Void) {
        while (try? receive(waiting: false)) == true {
            while let line = bufferedLine() { body(line) }
        }
    }

    /// Hands over lines as they come until `body` says it has what it waits for (returns true),
    /// or `idle` passes without one.
    func readLines(idle: Duration, _ body: (ArraySlice<UInt8>) -> Bool) throws {
        var polled = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while true {
            while let line = bufferedLine() { if body(line) { return } }
            guard poll(&polled, 1, Int32(idle.components.seconds * 1000)) > 0 else { return }
            try receive()
        }
    }

    private func bufferedLine() -> ArraySlice<UInt8>? {
        guard let newline = buffer[start..<end].firstIndex(of: 0x0A) else { return nil }
        defer { start = newline + 1 }
        return buffer[start..<newline]
    }

    /// Reads what is there into the buffer; without `waiting`, returns false when nothing was.
    @discardableResult
    private func receive(waiting: Bool = true) throws -> Bool {
        if start > 0 {
            buffer.replaceSubrange(0..<(end - start), with: buffer[start..<end])
            (start, end) = (0, end - start)
        }
        guard end < buffer.count else { throw BenchmarkFailure(description: "a line longer than \(buffer.count) bytes") }
        let count = buffer.withUnsafeMutableBytes {
            recv(descriptor, $0.baseAddress! + end, $0.count - end, waiting ? 0 : Int32(MSG_DONTWAIT))
        }
        if count < 0, !waiting, errno == EAGAIN || errno == EWOULDBLOCK { return false }
        guard count > 0 else { throw BenchmarkFailure(description: "the connection closed while waiting for a line") }
        end += count
        return true
    }
}

extension LineSocket: ScanReader {
    func readMessages(_ body: (ArraySlice<UInt8>, UInt64) -> Void) throws { try readLines(body) }
}
