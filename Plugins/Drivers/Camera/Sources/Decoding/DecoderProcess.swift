import CFrameDecoding
import Glibc

/// scanbridge-zxing, the process that runs zxing-cpp over a camera's frames, and the socket
/// the camera's thread speaks to it through (`Plugins/Drivers/Camera/CFrameDecoding`). Started on the first
/// frame, and again on the frame after it ended: a frame that makes it abort, crash or hang
/// costs that frame. Blocking: used on the camera's own thread only (not Sendable).
final class DecoderProcess {
    let executable: String
    /// How long one frame may take: a decoder that has not answered by then is killed.
    let timeout: Duration
    private var child: (pid: pid_t, socket: Int32)?

    init(executable: String, timeout: Duration = .seconds(5)) {
        self.executable = executable
        self.timeout = timeout
    }

    deinit { stop() }

    /// A code as the decoder process reported it.
    struct Found: Equatable {
        var format: UInt32
        var aim: String
        var bytes: [UInt8]
    }

    /// The codes of `formats` in `frame`, at most `maxCodes` (none for no format: zxing-cpp
    /// takes no format for every one).
    func decode(_ frame: GrayFrame, formats: UInt32, maxCodes: Int) throws(DecoderFailure) -> [Found] {
        guard formats != 0 else { return [] }
        let child = try running()
        let deadline = ContinuousClock.now + timeout
        do throws(DecoderFailure) {
            let request = scanbridge_decode_request(
                magic: SCANBRIDGE_DECODE_MAGIC, width: UInt32(frame.width), height: UInt32(frame.height), formats: formats,
                max_codes: UInt32(maxCodes))
            try withUnsafeBytes(of: request) { send($0, to: child.socket, by: deadline) }.get()
            try frame.packed.withUnsafeBytes { send($0, to: child.socket, by: deadline) }.get()
            return try Self.reply(maxCodes: maxCodes) { receive(into: $0, from: child.socket, by: deadline) }
        } catch {
            stop()
            throw error
        }
    }

    /// The running decoder process (nil when none runs), for the tests of its confinement.
    var pid: pid_t? { child?.pid }

    /// The decoder process's CPU time so far (nil when none runs), for the benchmark.
    var cpuTime: Duration? {
        guard let child else { return nil }
        var clock = clockid_t()
        var time = timespec()
        guard clock_getcpuclockid(child.pid, &clock) == 0, clock_gettime(clock, &time) == 0 else { return nil }
        return .seconds(time.tv_sec) + .nanoseconds(time.tv_nsec)
    }

    /// Ends the decoder process (it would end by itself at end of input) and reaps it.
    func stop() {
        guard let child else { return }
        self.child = nil
        close(child.socket)
        kill(child.pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(child.pid, &status, 0) < 0, errno == EINTR {}
    }

    /// The decoder process, started (and its hello awaited) if none runs.
    private func running() throws(DecoderFailure) -> (pid: pid_t, socket: Int32) {
        if let child { return child }
        var pid = pid_t()
        var socket: Int32 = -1
        let failed = scanbridge_decoder_spawn(executable, &pid, &socket)
        guard failed == 0 else {
            throw .cannotStart("cannot start the frame decoder \(executable): \(String(cString: strerror(failed)))")
        }
        child = (pid, socket)
        let deadline = ContinuousClock.now + timeout
        if let how = Self.hello({ receive(into: $0, from: socket, by: deadline) }) {
            stop()
            throw .cannotStart("the frame decoder \(executable) does not run: \(how)")
        }
        return (pid, socket)
    }

    // What the decoder says is read apart from the socket it comes through, so that
    // FuzzDecoderReply reads any bytes as the daemon reads a decoder's.

    /// Fills a buffer whole with what the decoder sends next, or says why it could not.
    typealias Receive = (UnsafeMutableRawBufferPointer) -> Result<Void, DecoderFailure>

    /// Nil when the decoder said its hello (an empty reply), else how it failed to.
    static func hello(_ receive: Receive) -> String? {
        var hello = scanbridge_decode_reply()
        let said = withUnsafeMutableBytes(of: &hello) { receive($0) }
        switch said {
        case .success where hello.magic == SCANBRIDGE_DECODE_MAGIC && hello.count == 0: return nil
        case .success: return "answered out of turn"
        case .failure(.ended(let sentence)), .failure(.hung(let sentence)), .failure(.cannotStart(let sentence)):
            return sentence
        }
    }

    /// A reply to a frame: its header, then each of its codes, at most `maxCodes`.
    static func reply(maxCodes: Int, _ receive: Receive) throws(DecoderFailure) -> [Found] {
        var reply = scanbridge_decode_reply()
        try withUnsafeMutableBytes(of: &reply) { receive($0) }.get()
        guard reply.magic == SCANBRIDGE_DECODE_MAGIC, reply.count <= maxCodes else {
            throw DecoderFailure.ended("answered out of turn")
        }
        return try (0..<Int(reply.count)).map { _ throws(DecoderFailure) in try code(receive) }
    }

    private static func code(_ receive: Receive) throws(DecoderFailure) -> Found {
        var code = scanbridge_decode_code()
        try withUnsafeMutableBytes(of: &code) { receive($0) }.get()
        guard code.length <= SCANBRIDGE_DECODE_MAX_CODE_BYTES else { throw .ended("sent a code of \(code.length) bytes") }
        var bytes = [UInt8](repeating: 0, count: Int(code.length))
        try bytes.withUnsafeMutableBytes { receive($0) }.get()
        let aim = withUnsafeBytes(of: code.aim) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        return Found(format: code.format, aim: aim, bytes: bytes)
    }

    // Results, not typed throws: the buffers come from `withUnsafe…Bytes`, whose closures
    // cannot throw a typed error.
    private func send(
        _ buffer: UnsafeRawBufferPointer, to socket: Int32, by deadline: ContinuousClock.Instant
    ) -> Result<Void, DecoderFailure> {
        // A decoder that is alive but reads nothing fills the socket: no longer than the frame may take.
        transfer(buffer.count, when: Int16(POLLOUT), on: socket, by: deadline) { offset in
            Glibc.send(socket, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
        }
    }

    private func receive(
        into buffer: UnsafeMutableRawBufferPointer, from socket: Int32, by deadline: ContinuousClock.Instant
    ) -> Result<Void, DecoderFailure> {
        transfer(buffer.count, when: Int16(POLLIN), on: socket, by: deadline) { offset in
            recv(socket, buffer.baseAddress! + offset, buffer.count - offset, 0)
        }
    }

    /// Moves `count` bytes, `step` moving those from an offset on, each time `socket` is
    /// ready for `events`, by `deadline`.
    private func transfer(
        _ count: Int, when events: Int16, on socket: Int32, by deadline: ContinuousClock.Instant, step: (Int) -> Int
    ) -> Result<Void, DecoderFailure> {
        var offset = 0
        while offset < count {
            switch wait(for: events, on: socket, by: deadline) {
            case .failure(let failure): return .failure(failure)
            case .success(false): continue
            case .success(true): break
            }
            let moved = step(offset)
            if moved < 0, errno == EINTR || errno == EAGAIN { continue }
            guard moved > 0 else { return .failure(.ended(exitDescription())) }
            offset += moved
        }
        return .success(())
    }

    /// Whether `socket` is ready for `events` (false: wait again); `hung` past the deadline.
    private func wait(for events: Int16, on socket: Int32, by deadline: ContinuousClock.Instant) -> Result<Bool, DecoderFailure> {
        let left = deadline - ContinuousClock.now
        guard left > .zero else { return .failure(.hung("gave no answer in \(timeout)")) }
        var ready = pollfd(fd: socket, events: events, revents: 0)
        let milliseconds = Int32(min(left / .milliseconds(1) + 1, 60_000))
        let polled = poll(&ready, 1, milliseconds)
        if polled < 0, errno != EINTR { return .failure(.ended("left a socket that cannot be polled (errno \(errno))")) }
        return .success(polled > 0)
    }

    /// How the decoder ended, once its socket closed: reaped here, so `stop` finds nothing to wait for.
    private func exitDescription() -> String {
        guard let child else { return "ended" }
        var status: Int32 = 0
        var reaped = waitpid(child.pid, &status, WNOHANG)
        // Its socket closes as it exits: give the kernel a moment to make it a zombie.
        for _ in 0..<100 where reaped == 0 {
            usleep(1000)
            reaped = waitpid(child.pid, &status, WNOHANG)
        }
        guard reaped == child.pid else { return "closed its socket" }
        close(child.socket)
        self.child = nil
        let signal = status & 0x7f
        return signal == 0 ? "exited with status \((status >> 8) & 0xff)" : "was killed by signal \(signal)"
    }
}

/// Why a frame was not decoded.
package enum DecoderFailure: Error, Equatable, CustomStringConvertible {
    /// The decoder could not be started at all (not installed?): the camera cannot read.
    case cannotStart(String)
    /// It ended or broke the format on this frame; the next frame starts a new one.
    case ended(String)
    /// It took longer than its timeout and was killed.
    case hung(String)

    package var description: String {
        switch self {
        case .cannotStart(let sentence): sentence
        case .ended(let how): "the frame decoder \(how) on this frame"
        case .hung(let how): "the frame decoder \(how), and was stopped"
        }
    }
}
