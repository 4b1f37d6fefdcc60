import CameraDriver
import Foundation
import ScanBridgeTesting

extension ScanBridgeBench {
    /// QR cameras: FrameDecoder's time a frame beside zbarimg's on the same 640×480 and
    /// 1280×720 frames (a QR label, an EAN-13 label, no code), frames a second a core, the
    /// cost of Data Matrix on, and the daemon's CPU while a camera streams 720p at 10 fps.
    static func camera(directory: URL, quick: Bool, report: inout Report) async throws {
        for tool in ["/usr/bin/qrencode", "/usr/bin/zint", ZBarImg.executable]
        where !FileManager.default.isExecutableFile(atPath: tool) {
            report.figure("camera", "skipped: no \(tool) (scripts/deps.sh installs it)", target: "")
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
        let cpu = try await CameraScenarios.streamingCPU(directory: directory, seconds: quick ? 5 : 12)
        report.figure(
            "baseline: scanbridged idle, file-camera driver, no camera", String(format: "%.2f%% of one core", cpu.idle),
            target: "")
        report.figure(
            "file camera streaming 1280×720 Y4M at 10 fps, no code in view",
            String(format: "%.1f%% of one core: %@", cpu.streaming, cpu.streaming <= 15 ? "PASS" : "FAIL"),
            target: "≤ 15% of one core")
    }

    /// The rows of one frame size: for each scene FrameDecoder with the default symbologies,
    /// zbarimg on the same frame and the ratio, then FrameDecoder with Data Matrix on.
    /// Blocks (decoding, zbarimg processes): runs on a thread of its own.
    static func decodingRows(width: Int, height: Int, folder: String, iterations: Int, quick: Bool) throws
        -> [(name: String, value: String, target: String)]
    {
        let withDataMatrix = try CameraSymbologies(parsing: "qr+ean+code-128+data-matrix")
        var rows: [(name: String, value: String, target: String)] = []
        for scene in try CameraFrames.scenes(width: width, height: height, directory: folder) {
            let ours = try CameraScenarios.decode(scene, symbologies: .all, iterations: iterations)
            let p50 = ours.wall.valueAtPercentile(50)
            rows.append(
                (
                    "camera \(width)×\(height) \(scene.name): FrameDecoder, qr+ean+code-128",
                    String(
                        format: "p50 %@  p99 %@, CPU %@ (%.0f frames/s a core)", Report.format(p50),
                        Report.format(ours.wall.valueAtPercentile(99)), Report.format(ours.cpuPerFrame),
                        1e9 / Double(ours.cpuPerFrame)), ""
                ))
            let zbarimg = try CameraScenarios.zbarimg(scene, directory: folder, copies: quick ? 5 : 20, rounds: quick ? 3 : 7)
            rows.append(
                (
                    "  baseline: zbarimg, same frame and decoders",
                    String(
                        format: "CPU %@ (of which reading the file %@), wall %@; ours/zbarimg CPU %.2f, wall %.2f",
                        Report.format(zbarimg.whole.cpu), Report.format(zbarimg.reading.cpu), Report.format(zbarimg.whole.wall),
                        Double(ours.cpuPerFrame) / Double(max(1, zbarimg.whole.cpu)),
                        Double(p50) / Double(max(1, zbarimg.whole.wall))), ""
                ))
            rows.append(
                (
                    "  zbarimg scanning every 2nd row and column (density 2)",
                    String(
                        format: "CPU %@, %@", Report.format(zbarimg.sparse.cpu),
                        zbarimg.sparseReads ? "reads the same" : "does not read the same"), ""
                ))
            let dataMatrix = try CameraScenarios.decode(scene, symbologies: withDataMatrix, iterations: quick ? 3 : 20)
            rows.append(
                (
                    "  FrameDecoder + data-matrix (datamatrix-ms 100)",
                    String(
                        format: "p50 %@  p99 %@, CPU %@", Report.format(dataMatrix.wall.valueAtPercentile(50)),
                        Report.format(dataMatrix.wall.valueAtPercentile(99)), Report.format(dataMatrix.cpuPerFrame)), ""
                ))
        }
        return rows
    }
}
