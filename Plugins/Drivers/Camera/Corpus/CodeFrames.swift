package import CameraDriver
import Foundation
package import ScanBridgeTesting
import Synchronization

/// Code images drawn by the generators (qrencode, zint), read back as a camera driver would.
package enum CodeFrames {
    /// This test process's folder of images, removed when the process exits.
    package static let directory: String = {
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(atPath: CodeFrames.folder) }
        return folder
    }()

    private static var folder: String { NSTemporaryDirectory() + "scanbridge-camera-tests-\(getpid())" }

    package static func path(_ name: String) -> String { directory + "/" + name + "-" + UUID().uuidString + ".png" }

    package static func qr(_ text: String, moduleSize: Int = 4) throws -> GrayFrame {
        try cached("qr \(moduleSize) \(text)") { try CodeImages.qr(text, to: $0, moduleSize: moduleSize) }
    }

    package static func zint(_ kind: CodeImages.Kind, _ data: String, scale: Int = 2) throws -> GrayFrame {
        try cached("zint \(kind) \(scale) \(data)") { try CodeImages.zint(kind, data, to: $0, scale: scale) }
    }

    /// Each image is drawn once per process: the generators are processes, and a burst of
    /// them slows the test suites that run beside these.
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
