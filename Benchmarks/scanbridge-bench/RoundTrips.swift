import Foundation
import Histogram
import ScanBridgeTesting

/// Request–answer round trips through a Unix socket, timed by the leanest client there is
/// (see `LineSocket`): a thread of its own that stamps, writes a line, blocks in `read` until
/// the answer's line is in, and stamps again.
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
            var histogram = Histogram<UInt64>.nanoseconds()
            var pauseTime = timespec(
                tv_sec: Int(pause.nanoseconds / 1_000_000_000), tv_nsec: Int(pause.nanoseconds % 1_000_000_000))
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
