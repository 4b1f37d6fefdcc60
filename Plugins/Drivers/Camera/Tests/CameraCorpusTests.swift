import CameraCorpus
import ReferenceDecoder
import Testing

@testable import CameraDriver

/// FrameDecoder over the whole corpus (CameraCorpus): every label of every symbology read
/// as printed, no code that a frame does not hold, and every frame the decoder before it
/// (zbar and libdmtx, with the Data Matrix cap it ran with) read whole.
/// The benchmark reports the read rates. The decoder has two minutes a frame: this thread,
/// and the decoder it starts, run at the lowest priority beside the other suites.
@Suite(.serialized)
struct CameraCorpusTests {
    @Test func readsWhatTheOldDecoderReadAndNothingElse() async throws {
        let report = try await onAThreadOfItsOwn {
            let decoder = FrameDecoder(timeout: .seconds(120))
            let reference = ZBarDmtxDecoder(symbologies: ZBarDmtxDecoder.symbologies)
            return try CameraCorpus.cases().map { item in
                (item.name, item.score(try decoder.decode(item.frame)), item.score(reference.decode(item.frame)))
            }
        }
        for (name, new, old) in report {
            #expect(new.falsePositives.isEmpty, "\(name): read \(new.falsePositives), which the frame does not hold")
            #expect(!old.readAll || new.readAll, "\(name): the old decoder read it whole, FrameDecoder did not")
            #expect(!name.hasSuffix(" printed") || new.readAll, "\(name): not read as printed")
        }
        #expect(report.count > 100)
    }
}
