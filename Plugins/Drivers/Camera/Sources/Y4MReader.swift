import Foundation

/// Frames from a YUV4MPEG2 (`.y4m`) file, one at a time: the luma plane of each, the chroma
/// skipped. The stream header gives `W`, `H` and the chroma layout `C` (4:2:0 when absent);
/// each frame is `FRAME`, its own parameters, a newline, then the planes.
package final class Y4MReader {
    package let width: Int
    package let height: Int
    /// Frames per second from the header's `F` (nil when absent).
    package let frameRate: Double?
    private let handle: FileHandle
    private let chromaBytes: Int
    private let path: String

    package init(path: String) throws(FrameError) {
        self.path = path
        do {
            handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        } catch {
            throw .unreadable("cannot read \(path): \(error.localizedDescription)")
        }
        let header = try Self.line(from: handle, path: path)
        let fields = header.split(separator: " ")
        guard fields.first == "YUV4MPEG2" else { throw .unreadable("\(path) is not a YUV4MPEG2 file") }
        var width = 0
        var height = 0
        var chroma = "420"
        var rate: Double?
        for field in fields.dropFirst() {
            let value = field.dropFirst()
            switch field.first {
            case "W": width = Int(value) ?? 0
            case "H": height = Int(value) ?? 0
            case "C": chroma = String(value)
            case "F":
                let parts = value.split(separator: ":").compactMap { Double($0) }
                if parts.count == 2, parts[0] > 0, parts[1] > 0 { rate = parts[0] / parts[1] }
            default: break
            }
        }
        guard (1...GrayFrame.maxSide).contains(width), (1...GrayFrame.maxSide).contains(height) else {
            throw .unreadable("\(path): a frame size of \(width)×\(height) pixels")
        }
        let halfWidth = (width + 1) / 2
        let halfHeight = (height + 1) / 2
        switch chroma {
        case _ where chroma.hasPrefix("420"): chromaBytes = 2 * halfWidth * halfHeight
        case _ where chroma.hasPrefix("422"): chromaBytes = 2 * halfWidth * height
        case _ where chroma.hasPrefix("444") && !chroma.hasPrefix("444alpha"): chromaBytes = 2 * width * height
        case "mono": chromaBytes = 0
        default: throw .unreadable("\(path): chroma layout '\(chroma)' is not read (420*, 422, 444, mono are)")
        }
        self.width = width
        self.height = height
        self.frameRate = rate
    }

    deinit { try? handle.close() }

    /// The next frame's luma; nil at the end of the file. A truncated last frame is an error.
    package func next() throws(FrameError) -> GrayFrame? {
        let marker: String
        do {
            marker = try Self.line(from: handle, path: path)
        } catch .unreadable(let sentence) where sentence.hasSuffix("ends") {
            return nil
        }
        guard marker.hasPrefix("FRAME") else { throw .malformed("\(path): '\(marker.prefix(16))' where a FRAME was due") }
        let luma = width * height
        let planes: Data
        do {
            planes = try handle.read(upToCount: luma + chromaBytes) ?? Data()
        } catch {
            throw .unreadable("cannot read \(path): \(error.localizedDescription)")
        }
        guard planes.count == luma + chromaBytes else {
            throw .malformed("\(path): a truncated frame (\(planes.count) of \(luma + chromaBytes) bytes)")
        }
        return try GrayFrame(width: width, height: height, bytes: [UInt8](planes.prefix(luma)))
    }

    /// Restarts at the first frame (a looping file camera).
    package func rewind() throws(FrameError) {
        do {
            try handle.seek(toOffset: 0)
            _ = try Self.line(from: handle, path: path)
        } catch {
            throw .unreadable("cannot rewind \(path): \(error)")
        }
    }

    /// One header line, without its newline; at most 1 KiB.
    private static func line(from handle: FileHandle, path: String) throws(FrameError) -> String {
        var bytes: [UInt8] = []
        while true {
            let byte: Data?
            do { byte = try handle.read(upToCount: 1) } catch {
                throw .unreadable("cannot read \(path): \(error.localizedDescription)")
            }
            guard let value = byte?.first else {
                if bytes.isEmpty { throw .unreadable("\(path) ends") }
                throw .malformed("\(path): a header line with no newline")
            }
            if value == 0x0A { return String(decoding: bytes, as: UTF8.self) }
            bytes.append(value)
            guard bytes.count <= 1024 else { throw .malformed("\(path): a header line over 1 KiB") }
        }
    }
}
