/// Uniform integer noise from a 64-bit linear congruential generator: the same noisy frames
/// in every run (the system generator cannot be seeded), for the camera tests and benchmark.
package struct SeededNoise {
    private var state: UInt64

    package init(seed: UInt64) { state = seed }

    /// A value in -amplitude...amplitude.
    package mutating func next(amplitude: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(2 * amplitude + 1)) - amplitude
    }
}
