/// The luma of a V4L2 buffer as a `GrayFrame`, for the formats read without a decoder:
/// GREY is the luma as is; YUYV (`Y0 U0 Y1 V0`) has it in every other byte. Rows are
/// `bytesPerLine` apart, as the driver's `VIDIOC_S_FMT` said (it may pad them).
enum V4L2FrameConversion {
    /// The frame in `buffer` (the bytes the driver filled); throws when it holds too few.
    static func gray(
        _ buffer: UnsafeRawBufferPointer, format: V4L2PixelFormat, width: Int, height: Int,
        bytesPerLine: Int
    ) throws(FrameError) -> GrayFrame {
        switch format {
        case .grey:
            return try GrayFrame(width: width, height: height, bytesPerLine: bytesPerLine, bytes: [UInt8](buffer))
        case .yuyv:
            let needed = bytesPerLine * (height - 1) + 2 * width
            guard width > 0, height > 0, bytesPerLine >= 2 * width, buffer.count >= needed else {
                throw .malformed("\(buffer.count) bytes for a \(width)×\(height) YUYV frame of \(bytesPerLine) bytes per line")
            }
            let luma = [UInt8](unsafeUninitializedCapacity: width * height) { pixels, count in
                for row in 0..<height {
                    let line = row * bytesPerLine
                    for column in 0..<width { pixels[row * width + column] = buffer[line + 2 * column] }
                }
                count = width * height
            }
            return try GrayFrame(width: width, height: height, bytes: luma)
        case .mjpeg:
            throw .unreadable("an MJPEG frame is decoded by MJPEGDecoder")
        }
    }
}
