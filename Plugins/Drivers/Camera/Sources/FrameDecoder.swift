/// Grayscale frames in, codes out: zbar for the barcodes and QR codes, libdmtx for Data
/// Matrix, each only when a wanted symbology needs it. Pure apart from the libraries' state;
/// one per decoding thread (not Sendable).
package final class FrameDecoder {
    package let symbologies: CameraSymbologies
    private let zbar: ZBarScanner?
    private let dataMatrix: DataMatrixScanner?

    /// `dataMatrixTimeLimit` caps libdmtx's search in each frame.
    package init(symbologies: CameraSymbologies = .default, dataMatrixTimeLimit: Duration = .milliseconds(100)) {
        self.symbologies = symbologies
        zbar = symbologies.needsZBar ? ZBarScanner(symbologies: symbologies) : nil
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
