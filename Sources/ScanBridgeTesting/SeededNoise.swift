/// Uniform integer noise from `SeededRandom`: the same noisy frames in every run (the system
/// generator cannot be seeded), for the camera tests and benchmark.
package struct SeededNoise {
    private var random: SeededRandom

    package init(seed: UInt64) { random = SeededRandom(seed: seed) }

    /// A value in -amplitude...amplitude.
    package mutating func next(amplitude: Int) -> Int {
        Int((random.step() >> 33) % UInt64(2 * amplitude + 1)) - amplitude
    }
}
