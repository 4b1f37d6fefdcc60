import CameraCorpus
import Foundation
import Testing

@testable import CameraDriver

/// The real decoder confines itself before its hello (Decoder/sandbox.h): a frame that
/// takes over zxing-cpp finds a process that can read and write its socket and nothing else.
@Suite
struct DecoderSandboxTests {
    /// The decoder as the daemon runs it, one blank frame in: what /proc says of it.
    struct Running: Sendable {
        var status: String
        var limits: String
        var environment: [String]
    }

    static func running() async throws -> Running {
        try await onAThreadOfItsOwn {
            let process = DecoderProcess(executable: FrameDecoder.executable)
            defer { process.stop() }
            _ = try process.decode(GrayFrame.make(width: 64, height: 48), formats: 1 << 13, maxCodes: 4)
            guard let pid = process.pid else { throw DecoderFailure.ended("ended after a frame") }
            func read(_ name: String) throws -> String { try String(contentsOfFile: "/proc/\(pid)/\(name)", encoding: .utf8) }
            return Running(
                status: try read("status"), limits: try read("limits"),
                environment: try read("environ").split(separator: "\0").map(String.init))
        }
    }

    /// A line of /proc/PID/limits with its soft and hard values, spaces squeezed.
    static func limit(_ name: String, in limits: String) -> String? {
        limits.split(separator: "\n").first { $0.hasPrefix(name) }
            .map { $0.dropFirst(name.count).split(separator: " ").prefix(2).joined(separator: " ") }
    }

    @Test func theDecoderRunsUnderItsSeccompFilterAndLimits() async throws {
        let decoder = try await Self.running()
        #expect(decoder.status.contains("Seccomp:\t2\n"), "no seccomp filter")
        #expect(decoder.status.contains("NoNewPrivs:\t1\n"))
        #expect(Self.limit("Max open files", in: decoder.limits) == "3 3")
        #expect(Self.limit("Max file size", in: decoder.limits) == "0 0")
        #expect(Self.limit("Max core file size", in: decoder.limits) == "0 0")
        // AddressSanitizer's shadow memory takes more address space than any limit leaves.
        let sanitized = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "__asan_init") != nil
        if !sanitized {
            #expect(Self.limit("Max address space", in: decoder.limits) == "1073741824 1073741824")
        }
    }

    @Test func theDecoderGetsNoneOfTheDaemonsEnvironment() async throws {
        #expect(try await Self.running().environment == ["SWIFT_BACKTRACE=enable=no"])
    }

    /// `--check-sandbox CALL` confines the decoder as for frames, then makes the call.
    @Test(arguments: ["open", "socket", "exec"])
    func aDecoderThatReachesOutIsKilled(_ call: String) throws {
        let decoder = Process()
        decoder.executableURL = URL(fileURLWithPath: FrameDecoder.executable)
        decoder.arguments = ["--check-sandbox", call]
        decoder.standardOutput = FileHandle.nullDevice
        try decoder.run()
        decoder.waitUntilExit()
        #expect(decoder.terminationReason == .uncaughtSignal)
        #expect(decoder.terminationStatus == SIGSYS)
    }
}
