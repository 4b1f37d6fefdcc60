import CameraCorpus
import Testing

@testable import CameraDriver

/// FrameDecoder over the whole corpus (CameraCorpus): every label of every symbology read
/// as printed, no code that a frame does not hold, and every frame the decoder before it
/// (zbar and libdmtx, with the Data Matrix cap it ran with) read whole (`OldDecoderReads`).
/// The benchmark reports the read rates. The decoder has two minutes a frame: this thread,
/// and the decoder it starts, run at the lowest priority beside the other suites.
@Suite
struct CameraCorpusTests {
    @Test func readsWhatTheOldDecoderReadAndNothingElse() async throws {
        let report = try await onAThreadOfItsOwn {
            let decoder = FrameDecoder(timeout: .seconds(120))
            return try CameraCorpus.cases().map { item in (item.name, item.score(try decoder.decode(item.frame))) }
        }
        let names = Set(report.map(\.0))
        #expect(OldDecoderReads.frames.isSubset(of: names), "frames no longer in the corpus: write OldDecoderReads again")
        for (name, new) in report {
            #expect(new.falsePositives.isEmpty, "\(name): read \(new.falsePositives), which the frame does not hold")
            #expect(
                !OldDecoderReads.frames.contains(name) || new.readAll,
                "\(name): the old decoder read it whole, FrameDecoder did not")
            #expect(!name.hasSuffix(" printed") || new.readAll, "\(name): not read as printed")
        }
        #expect(report.count > 100)
    }
}
