import Testing

@testable import CameraDriver

/// Skipped frames are told once per interval, with how many went unsaid.
struct SkippedFramesTests {
    @Test func aBurstOfBadFramesIsOneWarningThenACount() {
        var skipped = SkippedFrames(interval: .seconds(10))
        #expect(skipped.skipped("MJPEG: premature end", at: .seconds(1)) == "skipped a frame: MJPEG: premature end")
        for second in 2...10 { #expect(skipped.skipped("MJPEG: premature end", at: .seconds(second)) == nil) }
        #expect(skipped.skipped("damaged", at: .seconds(11)) == "skipped 10 frames, the last: damaged")
        #expect(skipped.skipped("damaged", at: .seconds(30)) == "skipped a frame: damaged")
    }
}
