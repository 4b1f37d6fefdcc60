/// One grayscale camera frame: 8-bit luma, rows of `bytesPerLine` bytes of which the first
/// `width` are pixels (a V4L2 GREY buffer, or the Y plane of YUV).
package struct GrayFrame: Sendable, Equatable {
    package let width: Int
    package let height: Int
    package let bytesPerLine: Int
    package let bytes: [UInt8]

    /// The largest frame accepted (8K): a bigger one is a corrupt header, not a camera.
    package static let maxSide = 8192

    package init(width: Int, height: Int, bytesPerLine: Int? = nil, bytes: [UInt8]) throws(FrameError) {
        let stride = bytesPerLine ?? width
        guard (1...Self.maxSide).contains(width), (1...Self.maxSide).contains(height) else {
            throw .malformed("a frame of \(width)×\(height) pixels (each side 1 to \(Self.maxSide))")
        }
        guard stride >= width else { throw .malformed("\(stride) bytes per line for \(width) pixels") }
        guard bytes.count >= stride * (height - 1) + width else {
            throw .malformed("\(bytes.count) bytes for a \(width)×\(height) frame of \(stride) bytes per line")
        }
        self.width = width
        self.height = height
        self.bytesPerLine = stride
        self.bytes = bytes
    }

    /// The pixels with no padding between rows, as the decoder takes them.
    package var packed: [UInt8] {
        // A driver's buffer may run past the last row.
        guard bytesPerLine != width else { return bytes.count == width * height ? bytes : Array(bytes.prefix(width * height)) }
        var rows = [UInt8]()
        rows.reserveCapacity(width * height)
        for row in 0..<height { rows += bytes[row * bytesPerLine..<(row * bytesPerLine + width)] }
        return rows
    }
}

/// A frame or frame file that cannot be used, in words an operator can act on.
package enum FrameError: Error, Equatable, CustomStringConvertible {
    case malformed(String)
    case unreadable(String)

    package var description: String {
        switch self {
        case .malformed(let what): "malformed frame: \(what)"
        case .unreadable(let sentence): sentence
        }
    }
}
