import Foundation
import ScanBridgeTesting
import Synchronization

@testable import CameraDriver

/// What a camera does to a printed label, done to test frames: turned, scaled, out of
/// focus, noisy, several in one picture.
extension GrayFrame {
    static func make(width: Int, height: Int, fill: UInt8 = 255) -> GrayFrame {
        try! GrayFrame(width: width, height: height, bytes: [UInt8](repeating: fill, count: width * height))
    }

    func pixel(_ x: Int, _ y: Int) -> UInt8 {
        guard x >= 0, y >= 0, x < width, y < height else { return 255 }
        return bytes[y * bytesPerLine + x]
    }

    /// Turned by `degrees` about its centre (nearest pixel) on a white frame big enough.
    func rotated(by degrees: Double) -> GrayFrame {
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
    func scaled(by factor: Double) -> GrayFrame {
        let (w, h) = (max(1, Int(Double(width) * factor)), max(1, Int(Double(height) * factor)))
        var out = [UInt8](repeating: 255, count: w * h)
        for y in 0..<h { for x in 0..<w { out[y * w + x] = pixel(Int(Double(x) / factor), Int(Double(y) / factor)) } }
        return try! GrayFrame(width: w, height: h, bytes: out)
    }

    /// A box blur of `radius` pixels each way: out of focus.
    func blurred(radius: Int) -> GrayFrame {
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
    func noisy(amplitude: Int, seed: UInt64 = 7) -> GrayFrame {
        var noise = SeededNoise(seed: seed)
        let out = (0..<height).flatMap { y in
            (0..<width).map { x in
                UInt8(clamping: Int(pixel(x, y)) + noise.next(amplitude: amplitude))
            }
        }
        return try! GrayFrame(width: width, height: height, bytes: out)
    }

    /// This frame with `other` drawn at (`x`, `y`).
    func placing(_ other: GrayFrame, x: Int, y: Int) -> GrayFrame {
        var out = bytes
        for row in 0..<other.height where y + row < height {
            for column in 0..<other.width where x + column < width {
                out[(y + row) * bytesPerLine + x + column] = other.pixel(column, row)
            }
        }
        return try! GrayFrame(width: width, height: height, bytesPerLine: bytesPerLine, bytes: out)
    }
}

/// Test images from the generators, read back as a camera driver would.
enum TestFrames {
    /// This test process's folder of images, removed when the process exits.
    static let directory: String = {
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(atPath: TestFrames.folder) }
        return folder
    }()

    private static var folder: String { NSTemporaryDirectory() + "scanbridge-camera-tests-\(getpid())" }

    static func path(_ name: String) -> String { directory + "/" + name + "-" + UUID().uuidString + ".png" }

    static func qr(_ text: String, moduleSize: Int = 4) throws -> GrayFrame {
        try cached("qr \(moduleSize) \(text)") { try CodeImages.qr(text, to: $0, moduleSize: moduleSize) }
    }

    static func zint(_ kind: CodeImages.Kind, _ data: String, scale: Int = 2) throws -> GrayFrame {
        try cached("zint \(kind) \(scale) \(data)") { try CodeImages.zint(kind, data, to: $0, scale: scale) }
    }

    /// Each image is drawn once per test run: the generators are processes, and a burst of
    /// them slows the suites that run beside these.
    private static let drawn = Mutex<[String: GrayFrame]>([:])

    private static func cached(_ key: String, draw: (String) throws -> Void) throws -> GrayFrame {
        if let frame = drawn.withLock({ $0[key] }) { return frame }
        let file = path("drawn")
        try draw(file)
        let frame = try FrameFiles.read(path: file)
        drawn.withLock { $0[key] = frame }
        return frame
    }
}

/// Runs `body` on a new thread at the lowest priority (nice 19), not on Swift's cooperative
/// pool: seconds of image work in a debug build would otherwise delay the tasks and threads
/// of the suites running beside these (backpressure, serial timing) on a small machine.
func onAThreadOfItsOwn<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread {
            // Linux nice values are per thread: 0 is this thread, not the whole process.
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
            continuation.resume(with: Result { try body() })
        }.start()
    }
}
