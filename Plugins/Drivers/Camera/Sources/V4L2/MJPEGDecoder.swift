import CTurboJPEG

/// MJPEG camera frames to grayscale with libjpeg-turbo's TurboJPEG API: only the luma is
/// decoded. A frame the camera cut short or garbled is an error, warnings included (libjpeg
/// would fill what is missing with grey, and a half frame is not what the camera saw): the
/// frame is skipped. UVC cameras that leave out the Huffman tables (DHT) are read: libjpeg
/// falls back to the standard tables. Not thread-safe: one per capture thread.
package final class MJPEGDecoder {
    private let handle: tjhandle?

    package init() {
        handle = tjInitDecompress()
    }

    deinit { if let handle { tjDestroy(handle) } }

    /// The frame in `jpeg`, grayscale, at the size its header says.
    package func gray(_ jpeg: UnsafeRawBufferPointer) throws(FrameError) -> GrayFrame {
        guard let handle else { throw .unreadable("libjpeg-turbo could not start a decompressor") }
        guard let base = jpeg.baseAddress?.assumingMemoryBound(to: UInt8.self), jpeg.count > 0 else {
            throw .malformed("an empty MJPEG frame")
        }
        var width: Int32 = 0
        var height: Int32 = 0
        var subsampling: Int32 = 0
        var colorspace: Int32 = 0
        guard tjDecompressHeader3(handle, base, UInt(jpeg.count), &width, &height, &subsampling, &colorspace) == 0 else {
            throw .malformed("MJPEG: \(Self.reason(handle))")
        }
        guard (1...Int32(GrayFrame.maxSide)).contains(width), (1...Int32(GrayFrame.maxSide)).contains(height) else {
            throw .malformed("an MJPEG frame of \(width)×\(height) pixels")
        }
        let count = Int(width) * Int(height)
        var failed = false
        let pixels = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            failed =
                tjDecompress2(
                    handle, base, UInt(jpeg.count), buffer.baseAddress, width, 0, height,
                    Int32(TJPF_GRAY.rawValue), TJFLAG_STOPONWARNING) != 0
            // Written in full or not used: the frame is thrown away on failure.
            initialized = count
        }
        guard !failed else { throw .malformed("MJPEG: \(Self.reason(handle))") }
        return try GrayFrame(width: Int(width), height: Int(height), bytes: pixels)
    }

    private static func reason(_ handle: tjhandle) -> String {
        String(cString: tjGetErrorStr2(handle))
    }
}
