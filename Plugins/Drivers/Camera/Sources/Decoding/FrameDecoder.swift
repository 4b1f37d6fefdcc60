import Foundation
import ScanBridgeCodes

/// Grayscale frames in, codes out: zxing-cpp searches each frame for every wanted symbology,
/// in a process of its own (`DecoderProcess`). One per camera thread (not Sendable).
package final class FrameDecoder {
    package let symbologies: CameraSymbologies
    /// The most codes one frame gives: a sheet of labels is read whole, a frame of noise
    /// cannot make an unbounded list.
    package static let maxCodes = 64
    private let process: DecoderProcess

    /// `timeout`: how long one frame may take before the decoder is taken for hung.
    package init(
        symbologies: CameraSymbologies = .all, executable: String = FrameDecoder.executable, timeout: Duration = .seconds(5)
    ) {
        self.symbologies = symbologies
        process = DecoderProcess(executable: executable, timeout: timeout)
    }

    /// Every code found in the frame, each distinct code once.
    package func decode(_ frame: GrayFrame) throws(DecoderFailure) -> [DecodedCode] {
        let formats = symbologies.zxingFormats
        var found: [DecoderProcess.Found]
        do throws(DecoderFailure) {
            found = try process.decode(frame, formats: formats, maxCodes: Self.maxCodes)
        } catch .ended {
            // zxing-cpp 1.4 fails an assertion while merging the lines of a tilted 1D barcode
            // (it aborts, as Debian builds it) when several codes are looked for: the frame is
            // searched again, for the 2D codes, and for one 1D code, which takes another path.
            // Each search keeps what it found should the other end the decoder too.
            let twoD = Result { () throws(DecoderFailure) in
                try process.decode(frame, formats: formats & ~CameraSymbologies.linear, maxCodes: Self.maxCodes)
            }
            let oneD = Result { () throws(DecoderFailure) in
                try process.decode(frame, formats: formats & CameraSymbologies.linear, maxCodes: 1)
            }
            if case .failure(let failure) = twoD, case .failure = oneD { throw failure }
            found = ((try? twoD.get()) ?? []) + ((try? oneD.get()) ?? [])
        }
        var seen = Set<DecodedCode>()
        return found.compactMap { found in
            guard let code = Self.code(found), symbologies.contains(code.symbology), seen.insert(code).inserted else {
                return nil
            }
            return code
        }
    }

    /// A code as the protocol has it. zxing-cpp gives a DataBar's GTIN without its AI, and a
    /// DataBar Expanded's data in the human-readable form, `(01)…(10)…`: both become the
    /// element string a scanner sends (`01…`, GS after variable-length data). An ITF is an
    /// ITF-14: a line across a tilted one can read fewer digits that still pass the check.
    static func code(_ found: DecoderProcess.Found) -> DecodedCode? {
        guard let name = CameraSymbologies.name(zxingFormat: found.format, aim: found.aim) else { return nil }
        var bytes = found.bytes
        switch found.format {
        case CameraSymbologies.itf where bytes.count != 14: return nil
        case CameraSymbologies.dataBar where bytes.count == 14: bytes = Array("01".utf8) + bytes
        case CameraSymbologies.dataBarExpanded:
            if let text = String(validating: bytes, as: UTF8.self),
                let elements = try? GS1ElementString.parseHumanReadable(text)
            {
                bytes = Array(GS1ElementString.encode(elements).utf8)
            }
        default: break
        }
        return DecodedCode(symbology: name, aim: found.aim, bytes: bytes)
    }

    /// The decoder process's CPU time so far, for the benchmark.
    package var decoderCPUTime: Duration? { process.cpuTime }

    /// scanbridge-zxing: beside this program (a build's folder), else where the package
    /// installs it (`../lib/scanbridge/` from the program's folder).
    package static let executable: String = {
        let folder = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let candidates = [
            folder.appendingPathComponent("scanbridge-zxing").path,
            folder.deletingLastPathComponent().appendingPathComponent("lib/scanbridge/scanbridge-zxing").path,
            "/usr/lib/scanbridge/scanbridge-zxing",
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates.last!
    }()
}
