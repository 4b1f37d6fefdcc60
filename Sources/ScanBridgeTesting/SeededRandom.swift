import Foundation

/// A random number generator that its seed repeats, for the tests that feed random input:
/// a failure, or a crash that ends the run before any message, is replayed from the seed.
/// `SeededRandom(printingSeedFor:)` takes the seed from `SCANBRIDGE_TEST_SEED` when it is set,
/// else a new one each run, and prints it before the test draws anything.
package struct SeededRandom: RandomNumberGenerator {
    /// The environment variable that replays a run: the seed a test printed, in decimal.
    package static let seedVariable = "SCANBRIDGE_TEST_SEED"

    package let seed: UInt64
    private var state: UInt64

    package init(seed: UInt64) {
        self.seed = seed
        state = seed
    }

    /// The seed from `SCANBRIDGE_TEST_SEED`, or a new one, printed with how to replay `test`.
    package init(printingSeedFor test: String) {
        let given = ProcessInfo.processInfo.environment[Self.seedVariable].flatMap { UInt64($0) }
        self.init(seed: given ?? UInt64.random(in: .min ... .max))
        print("\(test): random input from seed \(seed); replay with \(Self.seedVariable)=\(seed)")
    }

    /// One step of Knuth's MMIX linear congruential generator: the new state, whose high bits
    /// are the random ones (the low bits cycle quickly).
    package mutating func step() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state
    }

    /// The high half as it is (where `random(in:using:)` looks), folded into the low half too.
    package mutating func next() -> UInt64 {
        let state = step()
        return state ^ (state >> 32)
    }
}
