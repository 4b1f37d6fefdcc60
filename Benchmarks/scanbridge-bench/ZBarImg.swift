import Foundation
import Glibc

/// `zbarimg` (Debian zbar-tools), the camera benchmark's baseline: zbar's own command-line
/// reader, given the same frames as PGM files, with the same decoders on as FrameDecoder's
/// default (QR, EAN-13, EAN-8, Code 128; UPC read as EAN-13) and QR data as raw bytes.
///
/// Its cost per frame is taken from one process given many copies of the frame minus a
/// process given one: the difference is what each further frame costs (ImageMagick reading
/// the PGM, zbar scanning it), without the process start and ImageMagick's set-up, which a
/// single frame would be dominated by.
enum ZBarImg {
    static let executable = "/usr/bin/zbarimg"
    /// Only the data on standard output, as raw bytes (FrameDecoder takes QR data raw too), no D-Bus.
    static let outputOptions = ["-q", "--raw", "--nodbus"]
    static let decoderOptions = [
        "-Sdisable", "-Sqrcode.enable", "-Sean13.enable", "-Sean8.enable", "-Scode128.enable",
        "-Sqrcode.binary",
    ]
    /// The same decoders scanning every second row and column only (zbar's default, and
    /// FrameDecoder's, is every one): what halving the scan would save.
    static let sparseOptions = decoderOptions + ["-Sx-density=2", "-Sy-density=2"]
    /// Every decoder off and no scan line drawn: what zbarimg spends on a frame besides zbar's
    /// scan (reading and converting the file).
    static let readingOnlyOptions = ["-Sdisable", "-Sx-density=0", "-Sy-density=0"]

    /// One frame's cost, wall and CPU nanoseconds.
    struct Cost {
        var wall: UInt64
        var cpu: UInt64
    }

    /// ImageMagick (zbarimg reads images through it) runs OpenMP threads that spin while
    /// waiting, which would bill zbarimg for CPU that decodes nothing: one thread, like FrameDecoder.
    static let environment = ProcessInfo.processInfo.environment.merging(["OMP_NUM_THREADS": "1", "MAGICK_THREAD_LIMIT": "1"]) {
        $1
    }

    /// The texts zbarimg reads in the file (one a line), to check it decodes what FrameDecoder does.
    static func read(_ path: String, options: [String] = decoderOptions) throws -> [String] {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: executable)
        child.arguments = outputOptions + options + [path]
        child.environment = environment
        let output = Pipe()
        child.standardOutput = output
        child.standardError = FileHandle.nullDevice
        try child.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        child.waitUntilExit()
        return text.split(separator: "\n").map(String.init)
    }

    /// The cost of one more frame, in each of `rounds` rounds of a run over `copies` + 1
    /// copies of the file and a run over one: the rounds' figures, sorted by wall time.
    static func perFrame(_ path: String, copies: Int, rounds: Int, options: [String] = decoderOptions) throws -> [Cost] {
        var costs: [Cost] = []
        for _ in 0..<rounds {
            let one = try run(options + [path])
            let many = try run(options + Array(repeating: path, count: copies + 1))
            costs.append(
                Cost(
                    wall: many.wall.subtractingClamped(one.wall) / UInt64(copies),
                    cpu: many.cpu.subtractingClamped(one.cpu) / UInt64(copies)))
        }
        return costs.sorted { $0.wall < $1.wall }
    }

    /// One zbarimg process, output to /dev/null: wall time from spawn to exit, and its user and
    /// system CPU time (wait4's rusage: the child's own, whatever else runs on the machine).
    /// Blocks in wait4: call it on a thread of its own.
    static func run(_ arguments: [String]) throws -> Cost {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = ([executable] + outputOptions + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for string in argv + envp { free(string) } }
        var pid: pid_t = 0
        let started = Nanos.now()
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard spawned == 0 else {
            throw BenchmarkFailure(description: "cannot start \(executable): \(String(cString: strerror(spawned)))")
        }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else {
                throw BenchmarkFailure(description: "wait4 for \(executable): \(String(cString: strerror(errno)))")
            }
        }
        let wall = Nanos.now() - started
        // Exit status 4 is "no symbol found", the no-code frame's right answer.
        let exited = status & 0x7F == 0
        let code = (status >> 8) & 0xFF
        guard exited, code == 0 || code == 4 else {
            throw BenchmarkFailure(
                description: "\(executable) \(arguments.prefix(8).joined(separator: " ")) … ended with status \(status)")
        }
        return Cost(wall: wall, cpu: nanos(usage.ru_utime) + nanos(usage.ru_stime))
    }

    private static func nanos(_ time: timeval) -> UInt64 {
        UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_usec) * 1_000
    }
}

extension UInt64 {
    /// `self − other`, 0 when other is larger (a noisy pair of runs).
    func subtractingClamped(_ other: UInt64) -> UInt64 { self > other ? self - other : 0 }
}
