package import CameraDriver
import Foundation
import ScanBridgeTesting

/// What a camera does to a printed label, done to test frames: turned, scaled, out of
/// focus, noisy, several in one picture.
extension GrayFrame {
    package static func make(width: Int, height: Int, fill: UInt8 = 255) -> GrayFrame {
        try! GrayFrame(width: width, height: height, bytes: [UInt8](repeating: fill, count: width * height))
    }

    package func pixel(_ x: Int, _ y: Int) -> UInt8 {
        guard x >= 0, y >= 0, x < width, y < height else { return 255 }
        return bytes[y * bytesPerLine + x]
    }

    /// Turned by `degrees` about its centre (nearest pixel) on a white frame big enough.
    package func rotated(by degrees: Double) -> GrayFrame {
        let angle = degrees * .pi / 180
        let (c, s) = (cos(angle), sin(angle))
        let side = Int((Double(width * width + height * height)).squareRoot()) + 2
        var out = [UInt8](repeating: 255, count: side * side)
        let (cx, cy, ox) = (Double(width) / 2, Double(height) / 2, Double(side) / 2)
        for y in 0..<side {
            for x in 0..<side {
                let (dx, dy) = (Double(x) - ox, Double(y) - ox)
                out[y * side + x] = pixel(Int((c * dx + s * dy + cx).rounded(.down)), Int((-s * dx + c * dy + cy).rounded(.down)))
            }
        }
        return try! GrayFrame(width: side, height: side, bytes: out)
    }

    /// Scaled by `factor` (nearest pixel).
    package func scaled(by factor: Double) -> GrayFrame {
        let (w, h) = (max(1, Int(Double(width) * factor)), max(1, Int(Double(height) * factor)))
        var out = [UInt8](repeating: 255, count: w * h)
        for y in 0..<h { for x in 0..<w { out[y * w + x] = pixel(Int(Double(x) / factor), Int(Double(y) / factor)) } }
        return try! GrayFrame(width: w, height: h, bytes: out)
    }

    /// A box blur of `radius` pixels each way: out of focus.
    package func blurred(radius: Int) -> GrayFrame {
        var out = [UInt8](repeating: 255, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                var sum = 0
                var count = 0
                for dy in -radius...radius {
                    for dx in -radius...radius {
                        sum += Int(pixel(x + dx, y + dy))
                        count += 1
                    }
                }
                out[y * width + x] = UInt8(sum / count)
            }
        }
        return try! GrayFrame(width: width, height: height, bytes: out)
    }

    /// Every pixel moved by up to ±`amplitude`, from a seeded generator (the same frame each run).
    package func noisy(amplitude: Int, seed: UInt64 = 7) -> GrayFrame {
        var noise = SeededNoise(seed: seed)
        let out = (0..<height).flatMap { y in
            (0..<width).map { x in
                UInt8(clamping: Int(pixel(x, y)) + noise.next(amplitude: amplitude))
            }
        }
        return try! GrayFrame(width: width, height: height, bytes: out)
    }

    /// Ink and paper moved towards each other: grey `ink` for black, `paper` for white.
    package func lowContrast(ink: UInt8 = 90, paper: UInt8 = 170) -> GrayFrame {
        let span = Int(paper) - Int(ink)
        return try! GrayFrame(
            width: width, height: height, bytesPerLine: bytesPerLine,
            bytes: bytes.map { UInt8(Int(ink) + Int($0) * span / 255) })
    }

    /// This frame with `other` drawn at (`x`, `y`).
    package func placing(_ other: GrayFrame, x: Int, y: Int) -> GrayFrame {
        var out = bytes
        for row in 0..<other.height where y + row < height {
            for column in 0..<other.width where x + column < width {
                out[(y + row) * bytesPerLine + x + column] = other.pixel(column, row)
            }
        }
        return try! GrayFrame(width: width, height: height, bytesPerLine: bytesPerLine, bytes: out)
    }
}
