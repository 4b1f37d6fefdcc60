import CameraDriver
import Foundation
import ScanBridgeTesting

/// Frames a camera sees with no code in them, where a decoder must find nothing: printed
/// text, a keyboard, wood, a checked cloth, stripes as regular as bars, dots, pure noise, and
/// blank frames. 640×480, drawn in the run, the same each run.
enum NoCodeScenes {
    static let width = 640
    static let height = 480

    static func all() -> [CorpusCase] {
        let scenes: [(String, () throws -> GrayFrame)] = [
            ("text", { try text() }),
            ("keyboard", { try keyboard() }),
            ("wood", { wood() }),
            ("checked cloth", { pattern { x, y in (x / 12 + y / 12) % 2 == 0 ? 60 : 200 } }),
            ("stripes", { pattern { x, _ in [0, 3, 4, 9, 11, 12].contains((x / 4) % 14) ? 30 : 230 } }),
            ("dots", { dots() }),
            ("noise", { GrayFrame.make(width: width, height: height, fill: 128).noisy(amplitude: 127) }),
            ("white", { GrayFrame.make(width: width, height: height) }),
            ("black", { GrayFrame.make(width: width, height: height, fill: 0) }),
        ]
        return scenes.compactMap { name, draw in
            (try? draw()).map { CorpusCase(name: "no code: \(name)", frame: $0, holds: []) }
        }
    }

    static func pattern(_ value: (Int, Int) -> UInt8) -> GrayFrame {
        var pixels = [UInt8](repeating: 0, count: width * height)
        for y in 0..<height { for x in 0..<width { pixels[y * width + x] = value(x, y) } }
        return try! GrayFrame(width: width, height: height, bytes: pixels)
    }

    static func wood() -> GrayFrame {
        pattern { x, y in UInt8(clamping: Int(140 + 40 * sin(Double(x) / 7 + 5 * sin(Double(y) / 43)))) }.noisy(amplitude: 6)
    }

    static func dots() -> GrayFrame {
        var noise = SeededNoise(seed: 3)
        var frame = GrayFrame.make(width: width, height: height, fill: 220)
        let dot = GrayFrame.make(width: 5, height: 5, fill: 20)
        for _ in 0..<1500 {
            frame = frame.placing(
                dot, x: noise.next(amplitude: width / 2) + width / 2, y: noise.next(amplitude: height / 2) + height / 2)
        }
        return frame
    }

    /// Lines of printed text: the human-readable line zint prints under a Code 128, with its
    /// bars cut off.
    static func text() throws -> GrayFrame {
        let lines = [
            "REPAIR ORDER 1001 - SCREEN CRACKED", "CUSTOMER: JANE DOE, 0171 5550123",
            "DEVICE: PHONE 12, IMEI ON BACK", "ESTIMATE 89.00 EUR INCL. VAT", "READY BY FRIDAY 27 NOVEMBER",
        ]
        var frame = GrayFrame.make(width: width, height: height)
        for (index, line) in lines.enumerated() {
            frame = frame.placing(try printedLine(line), x: 10, y: 20 + index * 80)
        }
        return frame.noisy(amplitude: 4)
    }

    /// A keyboard from above: dark gaps, light key caps, a letter on each.
    static func keyboard() throws -> GrayFrame {
        let letters = try printedLine("QWERTYUIOPASDFGHJKLZXCVBNM")
        var frame = GrayFrame.make(width: width, height: height, fill: 35)
        let cap = GrayFrame.make(width: 48, height: 48, fill: 205)
        let glyph = letters.width / 26
        for row in 0..<4 {
            for column in 0..<12 {
                let (x, y) = (20 + row * 14 + column * 50, 60 + row * 56)
                frame = frame.placing(cap, x: x, y: y)
                let index = (row * 12 + column) % 26
                frame = frame.placing(letters.cropped(x: index * glyph, width: glyph), x: x + 12, y: y + 8)
            }
        }
        return frame.noisy(amplitude: 5)
    }

    /// `text` in zint's font, the Code 128's bars cut off.
    static func printedLine(_ text: String) throws -> GrayFrame {
        let label = try CodeFrames.zint(.code128, text)
        let dark = (0..<label.height).map { y in (0..<label.width).contains { label.pixel($0, y) < 128 } }
        guard let barsStart = dark.firstIndex(of: true),
            let gap = dark[barsStart...].firstIndex(of: false),
            let textStart = dark[gap...].firstIndex(of: true)
        else { return label }
        return label.cropped(y: textStart)
    }
}

extension GrayFrame {
    /// The part of this frame from column `x` and row `y`, `width` columns wide.
    func cropped(x: Int = 0, y: Int = 0, width: Int? = nil) -> GrayFrame {
        let columns = min(width ?? self.width - x, self.width - x)
        var pixels: [UInt8] = []
        for row in y..<height { pixels += bytes[row * bytesPerLine + x..<row * bytesPerLine + x + columns] }
        return try! GrayFrame(width: columns, height: height - y, bytes: pixels)
    }
}
