import Foundation
import FuzzSupport
import Testing

@testable import FuzzTargets

/// Every committed seed of every fuzz target (Fuzz/Corpus/<target>/), through the target's
/// own test, in the plain debug build: a seed that crashes a target fails `make test`. The
/// search for new inputs, with AddressSanitizer and libFuzzer, is `make fuzz`'s.
@Suite("Fuzz targets' seeds")
struct FuzzSeedTests {
    static var targets: [String: any FuzzTarget.Type] {
        [
            "FuzzCodes": FuzzCodes.self, "FuzzConfig": FuzzConfig.self, "FuzzFrames": FuzzFrames.self,
            "FuzzHIDPOS": FuzzHIDPOS.self, "FuzzImport": FuzzImport.self, "FuzzJSON": FuzzJSON.self,
            "FuzzKeystrokes": FuzzKeystrokes.self, "FuzzMockScript": FuzzMockScript.self, "FuzzRPCLine": FuzzRPCLine.self,
            "FuzzSerial": FuzzSerial.self,
        ]
    }

    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/Corpus")

    @Test func everyTargetIsHereAndHasSeeds() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: Self.corpus.path)
        #expect(Set(folders) == Set(Self.targets.keys), "Fuzz/Corpus and the targets listed here differ")
    }

    @Test(arguments: targets.keys.sorted())
    func eachSeedPassesTheTarget(_ name: String) throws {
        let target = try #require(Self.targets[name])
        let folder = Self.corpus.appendingPathComponent(name)
        let seeds = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(!seeds.isEmpty, "\(name) has no seeds")
        for seed in seeds {
            let bytes = [UInt8](try Data(contentsOf: folder.appendingPathComponent(seed)))
            bytes.withUnsafeBufferPointer { target.test($0) }
        }
    }
}
