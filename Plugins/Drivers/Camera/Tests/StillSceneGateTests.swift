import CameraCorpus
import Testing

@testable import CameraDriver

/// Which frames a camera decodes: a still scene rarely, anything that changes at once.
struct StillSceneGateTests {
    static func ms(_ value: Int) -> Duration { .milliseconds(value) }

    /// A grey counter top with a darker object on it, and sensor noise that differs each frame.
    static func scene(seed: UInt64, shift: Int = 0) -> GrayFrame {
        GrayFrame.make(width: 320, height: 240, fill: UInt8(140 + shift))
            .placing(.make(width: 80, height: 60, fill: UInt8(60 + shift)), x: 200, y: 20)
            .noisy(amplitude: 6, seed: seed)
    }

    /// The times at which `frames` (one every 100 ms) are decoded.
    static func decodedTimes(_ frames: [GrayFrame], gate: StillSceneGate = StillSceneGate()) -> [Int] {
        var gate = gate
        return frames.indices.filter { gate.shouldDecode(frames[$0], at: ms($0 * 100)) }.map { $0 * 100 }
    }

    @Test func aStillNoisySceneIsDecodedOnceASecondAfterItSettles() {
        let frames = (0..<30).map { Self.scene(seed: UInt64($0 + 1)) }
        // The first frame is a change (nothing before it), so the first second is decoded whole.
        #expect(Self.decodedTimes(frames) == Array(stride(from: 0, through: 900, by: 100)) + [1900, 2900])
    }

    @Test func aCodeShownIsDecodedAtOnceAndWhileItSettles() throws {
        let label = try CodeFrames.qr("RO-2024-0042", moduleSize: 3)
        let still = (0..<20).map { Self.scene(seed: UInt64($0 + 1)) }
        let shown = (20..<40).map { Self.scene(seed: UInt64($0 + 1)).placing(label, x: 20, y: 20) }
        let decoded = Self.decodedTimes(still + shown)
        #expect(decoded.contains(2000), "the first frame with the code")
        #expect(Array(stride(from: 2000, through: 2900, by: 100)).allSatisfy(decoded.contains), "the code settling")
        #expect(!decoded.contains(3100), "then still again")
    }

    /// A code carried in is blurred while it moves; the sharp frames once it stops may be too
    /// like the blurred ones in block means to count as a change, so they are decoded anyway.
    @Test func framesAlikeToTheLastAreDecodedWhileTheSceneSettles() throws {
        let label = try CodeFrames.qr("RO-2024-0042", moduleSize: 3)
        let background = GrayFrame.make(width: 320, height: 240, fill: 140)
        let shown = background.placing(label, x: 20, y: 20)
        var gate = StillSceneGate()
        let decoded = [
            gate.shouldDecode(background, at: Self.ms(0)),
            gate.shouldDecode(shown, at: Self.ms(2000)),  // the code moving in
            gate.shouldDecode(shown, at: Self.ms(2100)),  // the same frame, settling
            gate.shouldDecode(shown, at: Self.ms(2900)),
            gate.shouldDecode(shown, at: Self.ms(3100)),  // settled
        ]
        #expect(decoded == [true, true, true, true, false])
    }

    @Test func aChangeOfTheWholePicturesBrightnessIsNoChange() {
        var gate = StillSceneGate()
        let decoded = [
            gate.shouldDecode(Self.scene(seed: 1), at: Self.ms(0)),
            gate.shouldDecode(Self.scene(seed: 2), at: Self.ms(1500)),  // due: a second since the last
            gate.shouldDecode(Self.scene(seed: 3, shift: 25), at: Self.ms(1600)),  // auto-exposure brightened it all
        ]
        #expect(decoded == [true, true, false])
    }

    @Test func aSlowDriftAddsUpToAChange() {
        var gate = StillSceneGate(refresh: .seconds(60))
        _ = gate.shouldDecode(Self.scene(seed: 1), at: Self.ms(0))
        var decodedAfterSettling: [Int] = []
        for step in 1...40 {
            // The object slides one pixel a frame: never a change from the frame before.
            let frame = GrayFrame.make(width: 320, height: 240, fill: 140)
                .placing(.make(width: 80, height: 60, fill: 60), x: 200 - step, y: 20)
            if gate.shouldDecode(frame, at: Self.ms(1000 + step * 100)) { decodedAfterSettling.append(step) }
        }
        #expect(!decodedAfterSettling.isEmpty)
    }

    @Test func aFrameOfAnotherSizeIsAChange() {
        var gate = StillSceneGate(refresh: .seconds(60))
        let decoded = [
            gate.shouldDecode(.make(width: 320, height: 240), at: Self.ms(0)),
            gate.shouldDecode(.make(width: 320, height: 240), at: Self.ms(5000)),
            gate.shouldDecode(.make(width: 640, height: 480), at: Self.ms(5100)),
        ]
        #expect(decoded == [true, false, true])
    }
}
