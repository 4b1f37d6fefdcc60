import CameraCorpus
import CameraDriver
import Foundation
import Glibc
import Histogram
import ReferenceDecoder
import ScanBridgeClient
import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeTesting

/// QR cameras: what decoding a frame costs (FrameDecoder beside zbarimg on the same frames),
/// and what a camera streaming 720p with no code in view costs the daemon.
enum CameraScenarios {
    /// A decoder's time over many decodes of one frame.
    struct DecodeFigures: Sendable {
        /// Wall time of each decode, nanoseconds.
        var wall: Histogram<UInt64>
        /// CPU time of the decoding thread and of its decoder process, nanoseconds a frame on average.
        var cpuPerFrame: UInt64
    }

    /// A decoder under test: how it decodes a frame, and the CPU it spends outside the
    /// calling thread so far (FrameDecoder's decoder process), nanoseconds.
    struct Decoder {
        var decode: (GrayFrame) throws -> [DecodedCode]
        var otherCPU: () -> UInt64 = { 0 }

        static func frameDecoder(_ symbologies: CameraSymbologies) -> Decoder {
            let decoder = FrameDecoder(symbologies: symbologies)
            return Decoder(
                decode: { try decoder.decode($0) },
                otherCPU: { UInt64((decoder.decoderCPUTime ?? .zero) / .nanoseconds(1)) })
        }

        static func zbarDmtx(_ symbologies: CameraSymbologies) -> Decoder {
            let decoder = ZBarDmtxDecoder(symbologies: symbologies)
            return Decoder(decode: { decoder.decode($0) })
        }
    }

    /// Decodes `scene`'s frame `iterations` times (after a tenth more as warm-up), each timed
    /// by the monotonic clock and by the CPU clocks of the thread and the decoder process.
    /// The first decode must read exactly what the scene holds. Blocks: call it on a thread
    /// of its own.
    static func decode(_ scene: CameraScene, with decoder: Decoder, named name: String, iterations: Int) throws -> DecodeFigures {
        let found = try decoder.decode(scene.frame).map { $0.text ?? "(binary)" }
        guard found == (scene.expected.map { [$0] } ?? []) else {
            throw BenchmarkFailure(
                description: "\(name) read \(found) in the \(scene.name) frame, not \(scene.expected ?? "nothing")")
        }
        var wall = Histogram<UInt64>.nanoseconds()
        var cpu: UInt64 = 0
        for index in 0..<(iterations + iterations / 10) {
            let (cpuStart, otherStart, started) = (threadCPU(), decoder.otherCPU(), Nanos.now())
            _ = try decoder.decode(scene.frame)
            let elapsed = Nanos.now() - started
            // A decoder process started again during the decode counts from zero.
            let other = decoder.otherCPU()
            let used = threadCPU() - cpuStart + (other >= otherStart ? other - otherStart : other)
            guard index >= iterations / 10 else { continue }
            _ = wall.record(elapsed)
            cpu += used
        }
        return DecodeFigures(wall: wall, cpuPerFrame: cpu / UInt64(iterations))
    }

    /// Each decoder's read rate over the corpus (CameraCorpus): frames read whole of those
    /// holding codes, and codes reported that a frame does not hold.
    static func corpusScores(_ decoders: [(String, Decoder)]) throws -> [(
        name: String, readWhole: Int, holding: Int, falsePositives: Int
    )] {
        let cases = try CameraCorpus.cases()
        let holding = cases.filter { !$0.holds.isEmpty }.count
        return try decoders.map { name, decoder in
            var (readWhole, falsePositives) = (0, 0)
            for item in cases {
                let score = item.score(try decoder.decode(item.frame))
                if score.readAll, !item.holds.isEmpty { readWhole += 1 }
                falsePositives += score.falsePositives.count
            }
            return (name, readWhole, holding, falsePositives)
        }
    }

    /// zbarimg on `scene`'s frame, written as a PGM into `directory`.
    struct ZBarImgFigures {
        /// A frame's cost with FrameDecoder's decoders, once zbarimg was seen to read what the scene holds.
        var whole: ZBarImg.Cost
        /// What of that is reading the file (every decoder off).
        var reading: ZBarImg.Cost
        /// A frame's cost scanning every second row and column, and whether that still read the scene.
        var sparse: ZBarImg.Cost
        var sparseReads: Bool
    }

    /// zbarimg's figures for `scene`, each the median of `rounds` (see `ZBarImg.perFrame`).
    /// Blocks: call it on a thread of its own.
    static func zbarimg(_ scene: CameraScene, directory: String, copies: Int, rounds: Int) throws -> ZBarImgFigures {
        let path = directory + "/frame-\(scene.frame.width)-\(scene.name.filter(\.isLetter)).pgm"
        try CameraFrames.writePGM(scene.frame, to: path)
        let found = try ZBarImg.read(path)
        guard found == (scene.expected.map { [$0] } ?? []) else {
            throw BenchmarkFailure(
                description: "zbarimg read \(found) in the \(scene.name) frame, not \(scene.expected ?? "nothing")")
        }
        let whole = try ZBarImg.perFrame(path, copies: copies, rounds: rounds)
        let reading = try ZBarImg.perFrame(path, copies: copies, rounds: max(1, rounds / 2), options: ZBarImg.readingOnlyOptions)
        let sparse = try ZBarImg.perFrame(path, copies: copies, rounds: max(1, rounds / 2), options: ZBarImg.sparseOptions)
        let sparseReads = try ZBarImg.read(path, options: ZBarImg.sparseOptions) == found
        return ZBarImgFigures(whole: median(whole), reading: median(reading), sparse: median(sparse), sparseReads: sparseReads)
    }

    /// The daemon's CPU (its decoder processes' included), in % of one core, while a file camera plays a 1280×720 Y4M of
    /// `frames` no-code frames at 10 fps in a loop, and the same daemon idle with no camera
    /// (the baseline): utime + stime of all its threads from /proc over `seconds`, after
    /// `settle` seconds.
    static func streamingCPU(directory: URL, frames: Int = 10, seconds: Double, settle: Duration = .seconds(3)) async throws
        -> (idle: Double, streaming: Double)
    {
        let file = directory.appendingPathComponent("no-code-720p.y4m").path
        try await onAThread("camera-frames") {
            let luma = (0..<frames).map { CameraFrames.compose(width: 1280, height: 720, label: nil, seed: UInt64($0 + 1)).bytes }
            try Data(Y4MFile.bytes(width: 1280, height: 720, luma: luma)).write(to: URL(fileURLWithPath: file))
        }
        let base = ["--drivers", "file-camera", "--log-level", "warning"]
        let idle = try await daemonCPU(arguments: base, seconds: seconds, settle: settle)
        let streaming = try await daemonCPU(
            arguments: base + ["--device", "file-camera:\(file),fps=10,loop=yes"],
            seconds: seconds, settle: settle)
        return (idle, streaming)
    }

    /// A release daemon's CPU (% of one core) over `seconds`, once its devices (if any) are
    /// ready and `settle` has passed; its devices must still be ready at the end.
    static func daemonCPU(arguments: [String], seconds: Double, settle: Duration) async throws -> Double {
        let daemon = try DaemonHarness(arguments: arguments)
        try await daemon.start()
        let client = try await daemon.connect()
        let allReady = { @Sendable in (try? await client.devices())?.allSatisfy { $0.state == .ready } ?? false }
        let measured: Result<Double, any Error>
        do {
            try await TapScenarios.waitUntil("the file camera is ready") { await allReady() }
            try await Task.sleep(for: settle)
            guard let pid = daemon.pid, let before = ProcessStat.cpuSecondsWithChildren(of: pid) else {
                throw BenchmarkFailure(description: "scanbridged is not running")
            }
            let started = Nanos.now()
            try await Task.sleep(for: .seconds(seconds))
            guard let after = ProcessStat.cpuSecondsWithChildren(of: pid) else {
                throw BenchmarkFailure(description: "scanbridged ended")
            }
            let elapsed = Double(Nanos.now() - started) / 1e9
            guard await allReady() else { throw BenchmarkFailure(description: "the file camera stopped being ready") }
            measured = .success((after - before) / elapsed * 100)
        } catch {
            measured = .failure(error)
        }
        await client.close()
        try await daemon.stop()
        return try measured.get()
    }

    /// The CPU time this thread has used, nanoseconds.
    static func threadCPU() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// The middle round by wall time, with the median CPU time (rounds sorted by wall).
    static func median(_ costs: [ZBarImg.Cost]) -> ZBarImg.Cost {
        let cpu = costs.map(\.cpu).sorted()
        return ZBarImg.Cost(wall: costs[costs.count / 2].wall, cpu: cpu[cpu.count / 2])
    }
}

/// Runs `body` on a new thread, not on Swift's cooperative pool: decoding frames and waiting
/// for child processes block.
func onAThread<T: Sendable>(_ name: String, _ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.name = name
        thread.start()
    }
}
