import CameraDriver
import Foundation
import ScanBridgeTesting

/// One frame of the camera benchmark and what must be read in it.
struct CameraScene: Sendable {
    /// `QR`, `EAN-13` or `no code`.
    let name: String
    let frame: GrayFrame
    /// The one code's text FrameDecoder and zbarimg must both read (nil: nothing), so that
    /// neither is timed while failing to decode.
    let expected: String?
}

/// The camera benchmark's frames, drawn in the run: a counter as a camera sees it (light
/// falling off across the frame, a textured surface, a few objects, sensor noise), with a
/// label drawn by qrencode or zint (`CodeImages`) near the middle, or none. A blank frame
/// would flatter both decoders: zbar's scanner does little where no edge is.
enum CameraFrames {
    static let qrText = "https://repair.example.com/orders/ord_1001"
    static let eanData = "590123412345"
    static let eanText = "5901234123457"
    static let dataMatrixText = "PN 4711-A SN 20261127"

    /// The QR, EAN-13, Data Matrix and no-code scenes of one frame size. Labels are larger on the larger
    /// frame, as the same label held at the same distance is to a camera of more pixels.
    static func scenes(width: Int, height: Int, directory: String) throws -> [CameraScene] {
        let scale = width >= 1280 ? 3 : 2
        let qrFile = directory + "/label-qr-\(width).png"
        let eanFile = directory + "/label-ean-\(width).png"
        try CodeImages.qr(qrText, to: qrFile, moduleSize: 2 * scale)
        try CodeImages.zint(.ean13, eanData, to: eanFile, scale: scale)
        let dataMatrixFile = directory + "/label-dm-\(width).png"
        try CodeImages.zint(.dataMatrix, dataMatrixText, to: dataMatrixFile, scale: 2 * scale)
        return [
            CameraScene(
                name: "QR", frame: compose(width: width, height: height, label: try FrameFiles.read(path: qrFile)),
                expected: qrText),
            CameraScene(
                name: "EAN-13", frame: compose(width: width, height: height, label: try FrameFiles.read(path: eanFile)),
                expected: eanText),
            CameraScene(
                name: "Data Matrix",
                frame: compose(width: width, height: height, label: try FrameFiles.read(path: dataMatrixFile)),
                expected: dataMatrixText),
            CameraScene(name: "no code", frame: compose(width: width, height: height, label: nil), expected: nil),
        ]
    }

    /// A `width`×`height` scene with `label` a little right of the middle, its paper a little
    /// grey and its ink not quite black; every pixel gets up to ±6 grey levels of seeded noise
    /// (`seed` varies it from frame to frame, as a sensor does; the scene stays the same).
    static func compose(width: Int, height: Int, label: GrayFrame?, seed: UInt64 = 1) -> GrayFrame {
        let objects = [(0.05, 0.60, 0.22, 0.95, 70.0), (0.70, 0.05, 0.97, 0.30, 190.0), (0.10, 0.08, 0.30, 0.28, 110.0)]
            .map {
                (
                    Int($0.0 * Double(width)), Int($0.1 * Double(height)), Int($0.2 * Double(width)), Int($0.3 * Double(height)),
                    $0.4
                )
            }
        let labelX = label.map { (width - $0.width) / 2 + width / 10 } ?? 0
        let labelY = label.map { (height - $0.height) / 2 } ?? 0
        var noise = SeededNoise(seed: seed)
        var pixels = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                var value: Double
                if let label, x >= labelX, y >= labelY, x < labelX + label.width, y < labelY + label.height {
                    value = 30 + 0.8 * Double(label.bytes[(y - labelY) * label.bytesPerLine + x - labelX])
                } else if let object = objects.first(where: { x >= $0.0 && y >= $0.1 && x < $0.2 && y < $0.3 }) {
                    value = object.4
                } else {
                    // Wood-like grain under light that falls off to the right and bottom.
                    let light = 160 - 50 * Double(x) / Double(width) - 30 * Double(y) / Double(height)
                    value = light + 18 * sin(Double(x) / 9 + 4 * sin(Double(y) / 57))
                }
                pixels[y * width + x] = UInt8(clamping: Int(value) + noise.next(amplitude: 6))
            }
        }
        return try! GrayFrame(width: width, height: height, bytes: pixels)
    }

    /// A binary PGM of `frame`, for zbarimg (ImageMagick reads it without decompressing).
    static func writePGM(_ frame: GrayFrame, to path: String) throws {
        let header = Array("P5\n\(frame.width) \(frame.height)\n255\n".utf8)
        try Data(header + frame.bytes).write(to: URL(fileURLWithPath: path))
    }
}
