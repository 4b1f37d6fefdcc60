import CDmtx
import CameraDriver

/// libdmtx's Data Matrix decoder over a frame. Looking for a Data Matrix in a frame with
/// none scans the whole frame, which takes long on a big one: each frame gets at most
/// `timeLimit` (what was found by then is kept). Not thread-safe.
package final class DataMatrixScanner {
    let timeLimit: Duration
    let maxCodes: Int
    static let minSide = 10

    init(timeLimit: Duration = .milliseconds(100), maxCodes: Int = 64) {
        self.timeLimit = timeLimit
        self.maxCodes = maxCodes
    }

    /// The Data Matrix codes in a frame whose pixels are packed (`width` bytes a row).
    /// A GS1 DataMatrix (FNC1 first) is `]d2` with its leading FNC1 dropped; later FNC1s
    /// become GS (0x1D), as on a scanner.
    func scan(packed pixels: [UInt8], width: Int, height: Int) -> [DecodedCode] {
        // The smallest Data Matrix is 10×10 modules; libdmtx asserts (aborts the process) on a
        // frame too small for its scan grid.
        guard width >= Self.minSide, height >= Self.minSide else { return [] }
        var pixels = pixels
        let milliseconds = Int(timeLimit / .milliseconds(1))
        var timeout = dmtxTimeAdd(dmtxTimeNow(), milliseconds)
        var codes: [DecodedCode] = []
        pixels.withUnsafeMutableBytes { buffer in
            var image = dmtxImageCreate(
                buffer.baseAddress?.assumingMemoryBound(to: UInt8.self), Int32(width), Int32(height),
                Int32(DmtxPack8bppK.rawValue))
            guard image != nil else { return }
            defer { dmtxImageDestroy(&image) }
            // Row 0 is the top of a camera frame; libdmtx's default is the bottom, which
            // would mirror every code.
            dmtxImageSetProp(image, Int32(DmtxPropImageFlip.rawValue), Int32(DmtxFlipNone.rawValue))
            var decoder = dmtxDecodeCreate(image, 1)
            guard decoder != nil else { return }
            defer { dmtxDecodeDestroy(&decoder) }
            dmtxDecodeSetProp(decoder, Int32(DmtxPropFnc1.rawValue), 0x1D)
            while codes.count < maxCodes {
                var region = dmtxRegionFindNext(decoder, &timeout)
                guard region != nil else { break }
                defer { dmtxRegionDestroy(&region) }
                var message = dmtxDecodeMatrixRegion(decoder, region, Int32(DmtxUndefined))
                guard let found = message?.pointee else { continue }
                defer { dmtxMessageDestroy(&message) }
                let count = max(0, min(Int(found.outputIdx), Int(found.outputSize)))
                var bytes = Array(UnsafeBufferPointer(start: found.output, count: count))
                let gs1 = bytes.first == 0x1D
                if gs1 { bytes.removeFirst() }
                codes.append(DecodedCode(symbology: "data-matrix", aim: gs1 ? "]d2" : "]d1", bytes: bytes))
            }
        }
        return codes
    }
}
