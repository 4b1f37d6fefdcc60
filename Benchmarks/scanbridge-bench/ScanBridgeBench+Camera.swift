import CameraCorpus
import CameraDriver
import Foundation
import Histogram
import ReferenceDecoder
import ScanBridgeTesting

extension ScanBridgeBench {
    /// Cameras: FrameDecoder's CPU a frame (every symbology, and the three the old decoder
    /// searched by default) beside the old decoder's (zbar and libdmtx) and zbarimg's on the
    /// same 640×480 and 1280×720 frames (a QR label, an EAN-13, a Data Matrix, no code), each
    /// decoder's read rate over the corpus, and the daemon's CPU while a camera streams 720p
    /// at 10 fps.
    static func camera(directory: URL, quick: Bool, report: inout Report) async throws {
        for tool in ["/usr/bin/qrencode", "/usr/bin/zint", ZBarImg.executable]
        where !FileManager.default.isExecutableFile(atPath: tool) {
            report.figure("camera", "skipped: no \(tool) (scripts/deps.sh installs it)")
            return
        }
        let folder = directory.appendingPathComponent("camera").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let scale = quick ? 10 : 1
        for (width, height) in [(640, 480), (1280, 720)] {
            let iterations = (width >= 1280 ? 150 : 300) / scale
            let rows = try await onAThread("camera-decoding") {
                try decodingRows(width: width, height: height, folder: folder, iterations: iterations, quick: quick)
            }
            for row in rows { report.figure(row.name, row.value, target: row.target) }
        }
        let scores = try await onAThread("camera-corpus") {
            try CameraScenarios.corpusScores([
                ("FrameDecoder, every symbology", .frameDecoder(.all)),
                ("baseline: zbar + libdmtx (datamatrix-ms 100)", .zbarDmtx(ZBarDmtxDecoder.symbologies)),
            ])
        }
        for score in scores {
            report.figure(
                "corpus: \(score.name)",
                "read \(score.readWhole) of \(score.holding) frames whole, \(score.falsePositives) false positives")
        }
        let cpu = try await CameraScenarios.streamingCPU(directory: directory, seconds: quick ? 5 : 12)
        report.figure(
            "baseline: scanbridged idle, file-camera driver, no camera", String(format: "%.2f%% of one core", cpu.idle))
        report.figure(
            "file camera streaming 1280×720 Y4M at 10 fps, no code in view, every symbology",
            String(format: "%.1f%% of one core", cpu.streaming), target: .atMost(cpu.streaming, 8, "≤ 8% of one core"))
    }

    /// `--old-decoder-reads`: the camera tests' `OldDecoderReads.swift`, the corpus frames the
    /// decoder before zxing-cpp reads whole. The tests hold FrameDecoder to it without linking
    /// zbar and libdmtx; written again when the corpus changes.
    static func printOldDecoderReads() throws {
        let reference = ZBarDmtxDecoder(symbologies: ZBarDmtxDecoder.symbologies)
        let names = try CameraCorpus.cases().filter { $0.score(reference.decode($0.frame)).readAll }.map(\.name)
        print(
            """
            /// The corpus frames (CameraCorpus) that the decoder before zxing-cpp (zbar and libdmtx,
            /// with the Data Matrix cap it ran with) read whole: FrameDecoder must read each of them
            /// too. Written by `make bench BENCH_ARGS=--old-decoder-reads`, which runs that decoder.
            enum OldDecoderReads {
                static let frames: Set<String> = [
            """)
        for name in names { print("        \(String(reflecting: name)),") }
        print("    ]\n}")
    }

    /// The rows of one frame size: for each scene FrameDecoder with every symbology and with
    /// QR, EAN and Code 128 only, the old decoder with those three (and with Data Matrix on),
    /// and zbarimg. Blocks (decoding, zbarimg processes): runs on a thread of its own.
    static func decodingRows(width: Int, height: Int, folder: String, iterations: Int, quick: Bool) throws
        -> [(name: String, value: String, target: Target?)]
    {
        let three = ZBarDmtxDecoder.counterDefault
        let threeAndDataMatrix = try CameraSymbologies(parsing: "qr+ean+code-128+data-matrix")
        let small = width < 1280
        var rows: [(name: String, value: String, target: Target?)] = []
        func row(_ name: String, _ figures: CameraScenarios.DecodeFigures, _ extra: String = "", target: Target? = nil) {
            let value = String(
                format: "p50 %@  p99 %@, CPU %@ (%.0f frames/s a core)%@", Report.format(figures.wall.valueAtPercentile(50)),
                Report.format(figures.wall.valueAtPercentile(99)), Report.format(figures.cpuPerFrame),
                1e9 / Double(figures.cpuPerFrame), extra)
            rows.append((name, value, target))
        }
        for scene in try CameraFrames.scenes(width: width, height: height, directory: folder) {
            let dataMatrix = scene.name == "Data Matrix"
            let all = try CameraScenarios.decode(scene, with: .frameDecoder(.all), named: "FrameDecoder", iterations: iterations)
            let old = try CameraScenarios.decode(
                scene, with: .zbarDmtx(dataMatrix ? threeAndDataMatrix : three), named: "zbar + libdmtx",
                iterations: dataMatrix ? max(3, iterations / 10) : iterations)
            let ratio = Double(all.cpuPerFrame) / Double(max(1, old.cpuPerFrame))
            // The targets are the 640×480 frame's, a counter camera's usual size.
            let cpu = Double(all.cpuPerFrame)
            let target: Target? =
                !small
                ? nil
                : dataMatrix
                    ? .atMost(cpu, 10e6, "≤ 10 ms CPU")
                    : .all(.atMost(cpu, 6e6, "≤ 6 ms CPU"), .atMost(ratio, 0.5, "≤ 0.5× the old decoder's"))
            row(
                "camera \(width)×\(height) \(scene.name): FrameDecoder, every symbology", all,
                String(format: "; ×%.2f the old decoder's CPU", ratio), target: target)
            if !dataMatrix {
                let ours = try CameraScenarios.decode(
                    scene, with: .frameDecoder(three), named: "FrameDecoder", iterations: iterations)
                row("  FrameDecoder, qr+ean+code-128", ours)
            }
            row(
                dataMatrix
                    ? "  baseline: zbar + libdmtx, qr+ean+code-128+data-matrix (datamatrix-ms 100)"
                    : "  baseline: zbar, qr+ean+code-128", old)
            guard !dataMatrix else { continue }
            let zbarimg = try CameraScenarios.zbarimg(scene, directory: folder, copies: quick ? 5 : 20, rounds: quick ? 3 : 7)
            rows.append(
                (
                    "  baseline: zbarimg, same frame and decoders",
                    String(
                        format: "CPU %@ (of which reading the file %@), wall %@; FrameDecoder (every symbology)/zbarimg CPU %.2f",
                        Report.format(zbarimg.whole.cpu), Report.format(zbarimg.reading.cpu), Report.format(zbarimg.whole.wall),
                        Double(all.cpuPerFrame) / Double(max(1, zbarimg.whole.cpu))), nil
                ))
        }
        return rows
    }
}
