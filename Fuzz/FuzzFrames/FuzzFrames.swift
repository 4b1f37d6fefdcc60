import CameraDriver
import Foundation
import FuzzSupport

/// The file camera's frame files, the first byte choosing the format: a PGM or PNG still, or
/// a Y4M stream (read from a file, as the file camera does, played through twice). Any bytes
/// give frames or a FrameError, never a crash.
enum FuzzFrames: FuzzTarget {
    /// One file per fuzzing process, written again for each input.
    private static let y4mPath = NSTemporaryDirectory() + "/scanbridge-fuzz-\(getpid()).y4m"

    static func test(_ bytes: UnsafeBufferPointer<UInt8>) {
        var input = FuzzInput(bytes)
        let choice = input.byte()
        let data = input.remaining()
        switch choice % 3 {
        case 0: _ = try? FrameFiles.pgm(data)
        case 1: _ = try? FrameFiles.png(data)
        default:
            guard FileManager.default.createFile(atPath: y4mPath, contents: Data(data)) else {
                fatalError("cannot write \(y4mPath)")
            }
            guard let reader = try? Y4MReader(path: y4mPath) else { return }
            for _ in 0..<2 {
                // A frame is at least a header line: no more frames than bytes.
                for _ in 0...data.count { guard (try? reader.next()) != nil else { break } }
                guard (try? reader.rewind()) != nil else { return }
            }
        }
    }
}
