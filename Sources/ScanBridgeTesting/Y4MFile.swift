/// YUV4MPEG2 (`.y4m`) streams of grayscale frames, as a file camera plays them: the camera
/// driver's tests and the camera benchmark's streaming frames.
package enum Y4MFile {
    /// A stream of frames of `width`×`height` 8-bit luma (`width` bytes a row), at `fps`,
    /// with neutral chroma (128) in the given layout (`420jpeg`, or `mono` for none).
    package static func bytes(width: Int, height: Int, luma frames: [[UInt8]], chroma: String = "420jpeg", fps: Int = 10)
        -> [UInt8]
    {
        var bytes = Array("YUV4MPEG2 W\(width) H\(height) F\(fps):1 Ip A1:1 C\(chroma)\n".utf8)
        let chromaBytes = chroma == "mono" ? 0 : 2 * ((width + 1) / 2) * ((height + 1) / 2)
        for luma in frames { bytes += Array("FRAME\n".utf8) + luma + [UInt8](repeating: 128, count: chromaBytes) }
        return bytes
    }
}
