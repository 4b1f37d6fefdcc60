package import CameraDriver

/// The decoder cameras had before zxing-cpp: zbar for QR codes and 1D barcodes, libdmtx for
/// Data Matrix, each only when a wanted symbology needs it. Kept as the baseline the camera
/// benchmark and the corpus test weigh FrameDecoder against, never linked into the daemon.
/// One per decoding thread (not Sendable).
package final class ZBarDmtxDecoder {
    /// What it reads: zbar has no Aztec or PDF417.
    package static let symbologies = try! CameraSymbologies(
        parsing: "qr+data-matrix+ean+code-128+code-39+code-93+itf+codabar+databar")
    /// What FrameDecoder read with by default before zxing-cpp: Data Matrix was opt-in.
    package static let counterDefault = try! CameraSymbologies(parsing: "qr+ean+code-128")

    private let zbar: ZBarScanner?
    private let dataMatrix: DataMatrixScanner?

    /// `dataMatrixTimeLimit` caps libdmtx's search in each frame.
    package init(symbologies: CameraSymbologies, dataMatrixTimeLimit: Duration = .milliseconds(100)) {
        zbar = symbologies.names.subtracting(["data-matrix"]).isEmpty ? nil : ZBarScanner(symbologies: symbologies)
        dataMatrix = symbologies.contains("data-matrix") ? DataMatrixScanner(timeLimit: dataMatrixTimeLimit) : nil
    }

    /// Every code found in the frame, each distinct code once.
    package func decode(_ frame: GrayFrame) -> [DecodedCode] {
        let pixels = frame.packed
        var codes = zbar?.scan(packed: pixels, width: frame.width, height: frame.height) ?? []
        codes += dataMatrix?.scan(packed: pixels, width: frame.width, height: frame.height) ?? []
        var seen = Set<DecodedCode>()
        return codes.filter { seen.insert($0).inserted }
    }
}
