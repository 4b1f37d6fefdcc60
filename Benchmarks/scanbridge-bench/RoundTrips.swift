import Foundation
import Histogram

/// Request–answer round trips through a Unix socket, timed by the leanest client there is:
/// a thread of its own that stamps, writes a line, blocks in `read` until the answer's line
/// is in, and stamps again. So the figure is the server's and the socket's, not the client's.
///
/// The SwiftNIO client the round trips were timed with before measured itself too: a send
/// hops from the task to the client's event loop, the answer wakes that loop, and the task
/// polls for it. Against one daemon on this 2-core VM, `bridge.hello` took p50 121 µs and
/// p99 507 µs through it, and p50 38 µs and p99 111 µs from a C client like this one.
enum RoundTrips {
    /// Sends `requests` one at a time, each after the last one's answer and a `pause`, and
    /// returns the round trips after the first `warmup`. Each answer must contain `expecting`.
    static func measure(
        socketPath: String, requests: [String], warmup: Int, pause: Duration = .microseconds(200),
        expecting: String? = nil
    ) async throws -> Histogram<UInt64> {
        let lines = requests.map { Array($0.utf8) + [0x0A] }
        let expected = expecting.map { Array($0.utf8) }
        return try await onAThread("round-trips") {
            let socket = try LineSocket(path: socketPath)
            var histogram = Histogram<UInt64>(highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)
            var pauseTime = timespec(tv_sec: 0, tv_nsec: Int(pause.components.attoseconds / 1_000_000_000))
            for (index, line) in lines.enumerated() {
                let sent = Nanos.now()
                try socket.write(line)
                let answer = try socket.readLine()
                let took = Nanos.now() - sent
                if let expected, !answer.contains(expected) {
                    throw BenchmarkFailure(description: "unexpected answer: \(String(decoding: answer, as: UTF8.self))")
                }
                if index >= warmup { _ = histogram.record(took) }
                nanosleep(&pauseTime, nil)
            }
            return histogram
        }
    }
}

/// A blocking Unix-socket connection that reads and writes whole lines.
final class LineSocket {
    private let descriptor: Int32
    private var buffer = [UInt8](repeating: 0, count: 1 << 16)
    /// Received bytes not yet returned: `buffer[start..<end]`.
    private var start = 0
    private var end = 0

    init(path: String) throws {
        descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw BenchmarkFailure(description: "socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { path.utf8CString.withUnsafeBytes($0.copyMemory) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            throw BenchmarkFailure(description: "connect to \(path): \(String(cString: strerror(errno)))")
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
            if let newline = buffer[start..<end].firstIndex(of: 0x0A) {
                defer { start = newline + 1 }
                return buffer[start..<newline]
            }
            if start > 0 {
                buffer.replaceSubrange(0..<(end - start), with: buffer[start..<end])
                (start, end) = (0, end - start)
            }
            guard end < buffer.count else { throw BenchmarkFailure(description: "a line longer than \(buffer.count) bytes") }
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress! + end, $0.count - end) }
            guard count > 0 else { throw BenchmarkFailure(description: "the connection closed while waiting for a line") }
            end += count
        }
    }
}
