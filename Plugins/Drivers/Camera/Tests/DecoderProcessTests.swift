import CameraCorpus
import Foundation
import ScanBridgeTesting
import Testing

@testable import CameraDriver

/// The decoder process failing every way it can: each failure is that frame's, said in
/// words, and the next frame gets a new process.
@Suite
struct DecoderProcessTests {
    /// A stand-in decoder: a shell script that says hello (`helloFirst`), then runs `body`.
    static func decoder(_ body: String, helloFirst: Bool = true) throws -> String {
        let path = CodeFrames.path("decoder") + ".sh"
        // The magic in native (little-endian) order, and a count of 0.
        let hello = helloFirst ? "printf '\\106\\104\\102\\123\\000\\000\\000\\000'\n" : ""
        try ExecutableScript.write("#!/bin/sh\n" + hello + body + "\n", to: path)
        return path
    }

    /// What `frames` decodes of a blank frame gave, one process for all, and whether a
    /// decoder process was left running after them.
    static func decode(
        with executable: String, timeout: Duration = .seconds(5), frames: Int = 2
    ) async throws -> (results: [Result<[DecoderProcess.Found], DecoderFailure>], running: Bool) {
        try await onAThreadOfItsOwn {
            let process = DecoderProcess(executable: executable, timeout: timeout)
            let frame = GrayFrame.make(width: 64, height: 48)
            var results: [Result<[DecoderProcess.Found], DecoderFailure>] = []
            for _ in 0..<frames {
                do throws(DecoderFailure) {
                    results.append(.success(try process.decode(frame, formats: 1 << 13, maxCodes: 4)))
                } catch {
                    results.append(.failure(error))
                }
            }
            return (results, process.cpuTime != nil)
        }
    }

    @Test func aDecoderThatDiesCostsThatFrame() async throws {
        let outcome = try await Self.decode(with: try Self.decoder("head -c 10 >/dev/null; kill -ABRT $$"))
        // A new process for the second frame, which dies the same way.
        #expect(outcome.results == Array(repeating: .failure(.ended("was killed by signal 6")), count: 2))
        #expect(!outcome.running)
    }

    @Test func aDecoderThatHangsIsKilled() async throws {
        let outcome = try await Self.decode(with: try Self.decoder("exec sleep 600"), timeout: .milliseconds(300), frames: 1)
        #expect(outcome.results == [.failure(.hung("gave no answer in 0.3 seconds"))])
        #expect(!outcome.running)
    }

    @Test func aDecoderThatSaysNonsenseIsStopped() async throws {
        let outcome = try await Self.decode(with: try Self.decoder("printf 'garbage, not a reply'; exec sleep 600"), frames: 1)
        #expect(outcome.results == [.failure(.ended("answered out of turn"))])
        #expect(!outcome.running)
    }

    @Test func aDecoderThatEndsAsItStartsCannotStart() async throws {
        let script = try Self.decoder("exit 127", helloFirst: false)
        let outcome = try await Self.decode(with: script, frames: 1)
        #expect(outcome.results == [.failure(.cannotStart("the frame decoder \(script) does not run: exited with status 127"))])
        #expect(!outcome.running)
    }

    @Test func aMissingDecoderCannotStart() async throws {
        let outcome = try await Self.decode(with: "/nonexistent/scanbridge-zxing", frames: 1)
        #expect(
            outcome.results == [
                .failure(.cannotStart("cannot start the frame decoder /nonexistent/scanbridge-zxing: No such file or directory"))
            ])
    }

    /// The decoder links Swift's runtime (SwiftPM's executables do), whose crash backtracer
    /// would run on every abort: it is started with the backtracer off.
    @Test func aDecoderRunsWithoutSwiftsCrashBacktracer() async throws {
        let script = try Self.decoder("[ \"$SWIFT_BACKTRACE\" = enable=no ] || exit 3", helloFirst: false)
        let outcome = try await Self.decode(with: script, frames: 1)
        #expect(outcome.results == [.failure(.cannotStart("the frame decoder \(script) does not run: exited with status 0"))])
    }

    @Test func theRealDecoderAnswersFrameAfterFrame() async throws {
        let outcome = try await Self.decode(with: FrameDecoder.executable, frames: 3)
        #expect(outcome.results == Array(repeating: .success([]), count: 3))
        #expect(outcome.running)
    }
}
