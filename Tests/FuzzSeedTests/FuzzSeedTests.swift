import Foundation
import FuzzSupport
import ScanBridgeTesting
import Testing

@testable import FuzzTargets

/// Every committed seed of every fuzz target (Fuzz/Corpus/<target>/), through the target's
/// own test, in the plain debug build: a seed that crashes a target fails `make test`. Then a
/// bounded slice of what libFuzzer does, the same inputs every run: mutations of each
/// target's seeds and dictionary tokens. And each target's dictionary, which libFuzzer
/// refuses whole for one bad line. The search for new inputs, with AddressSanitizer and
/// libFuzzer, is `make fuzz`'s.
///
/// Serialized: the config and frame targets write each input to one file per process.
@Suite("Fuzz targets' seeds", .serialized)
struct FuzzSeedTests {
    static var targets: [String: any FuzzTarget.Type] {
        [
            "FuzzCodes": FuzzCodes.self, "FuzzConfig": FuzzConfig.self, "FuzzDecoderReply": FuzzDecoderReply.self,
            "FuzzFrames": FuzzFrames.self, "FuzzGateway": FuzzGateway.self, "FuzzHIDPOS": FuzzHIDPOS.self,
            "FuzzImport": FuzzImport.self, "FuzzJSON": FuzzJSON.self, "FuzzKeystrokes": FuzzKeystrokes.self,
            "FuzzMockScript": FuzzMockScript.self, "FuzzNormalizer": FuzzNormalizer.self, "FuzzRPCLine": FuzzRPCLine.self,
            "FuzzRPCParams": FuzzRPCParams.self, "FuzzSerial": FuzzSerial.self, "FuzzSUN": FuzzSUN.self,
            "FuzzType4": FuzzType4.self, "FuzzUSB": FuzzUSB.self,
        ]
    }

    static let fuzz = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz")
    static let corpus = fuzz.appendingPathComponent("Corpus")
    static let dictionaries = fuzz.appendingPathComponent("Dictionaries")

    /// Inputs made from each target's seeds: enough to pass the common mutations over every
    /// seed, few enough that every target's together take a few seconds in a debug build.
    /// Fewer for the targets that write each input to a file, which costs milliseconds.
    static func mutations(of name: String) -> Int {
        ["FuzzConfig", "FuzzFrames"].contains(name) ? 500 : 2000
    }
    /// Seeds larger than this are cut: a mutation's cost should not grow with its seed.
    static let maxInputBytes = 4096

    @Test func everyTargetIsHereAndHasSeeds() throws {
        let folders = try FileManager.default.contentsOfDirectory(atPath: Self.corpus.path)
        #expect(Set(folders) == Set(Self.targets.keys), "Fuzz/Corpus and the targets listed here differ")
    }

    @Test(arguments: targets.keys.sorted())
    func eachSeedPassesTheTarget(_ name: String) throws {
        let target = try #require(Self.targets[name])
        let seeds = try Self.seeds(of: name)
        #expect(!seeds.isEmpty, "\(name) has no seeds")
        for seed in seeds {
            seed.withUnsafeBufferPointer { target.test($0) }
        }
    }

    @Test func everyTargetHasADictionary() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.dictionaries.path)
        #expect(Set(files) == Set(Self.targets.keys.map { "\($0).dict" }), "Fuzz/Dictionaries and the targets differ")
    }

    @Test(arguments: targets.keys.sorted())
    func eachDictionaryLineParses(_ name: String) throws {
        let text = try String(contentsOf: Self.dictionaries.appendingPathComponent("\(name).dict"), encoding: .utf8)
        var tokens = 0
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            switch DictionaryLine(line) {
            case .token: tokens += 1
            case .blankOrComment: break
            case .invalid(let reason): Issue.record("\(name).dict line \(index + 1): \(reason): \(line)")
            }
        }
        #expect(tokens > 0, "\(name).dict has no token")
    }

    /// What libFuzzer's mutators do, from a seed fixed for each target, so that an input that
    /// fails here fails the same way on every run (and on the same test alone).
    @Test(arguments: targets.keys.sorted())
    func mutationsOfTheSeedsPassTheTarget(_ name: String) throws {
        let target = try #require(Self.targets[name])
        let text = try String(contentsOf: Self.dictionaries.appendingPathComponent("\(name).dict"), encoding: .utf8)
        let tokens = text.split(separator: "\n").compactMap { line -> [UInt8]? in
            guard case .token(let bytes) = DictionaryLine(line) else { return nil }
            return bytes
        }
        var mutator = SeedMutator(
            seeds: try Self.seeds(of: name).map { Array($0.prefix(Self.maxInputBytes)) }, tokens: tokens,
            random: SeededRandom(seed: Self.seed(of: name)))
        for _ in 0..<Self.mutations(of: name) {
            mutator.next().withUnsafeBufferPointer { target.test($0) }
        }
    }

    static func seeds(of name: String) throws -> [[UInt8]] {
        let folder = corpus.appendingPathComponent(name)
        return try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().map {
            [UInt8](try Data(contentsOf: folder.appendingPathComponent($0)))
        }
    }

    /// FNV-1a of the target's name: its inputs do not change when another target is added.
    static func seed(of name: String) -> UInt64 {
        name.utf8.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }
}

/// One line of a libFuzzer dictionary: blank, a `#` comment, or `name="bytes"` (the name is
/// optional) with `\\`, `\"` and `\xNN` the only escapes, as libFuzzer's parser takes them.
enum DictionaryLine {
    case blankOrComment
    case token([UInt8])
    case invalid(String)

    init(_ line: Substring) {
        let text = line.trimmingCharacters(in: .whitespaces)
        if text.isEmpty || text.hasPrefix("#") {
            self = .blankOrComment
            return
        }
        guard let open = text.firstIndex(of: "\""), open < text.index(before: text.endIndex), text.hasSuffix("\"") else {
            self = .invalid("not name=\"bytes\"")
            return
        }
        let name = text[..<open]
        guard
            name.isEmpty
                || name.hasSuffix("=") && name.dropLast().allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") })
        else {
            self = .invalid("a name is letters, digits and _ before =")
            return
        }
        var bytes: [UInt8] = []
        var rest = Array(text[text.index(after: open)...].utf8.dropLast())
        while !rest.isEmpty {
            let byte = rest.removeFirst()
            guard byte >= 0x20, byte < 0x7F, byte != UInt8(ascii: "\"") else {
                self = .invalid("a byte outside printable ASCII, or a quote, not escaped")
                return
            }
            guard byte == UInt8(ascii: "\\") else {
                bytes.append(byte)
                continue
            }
            if let next = rest.first, next == UInt8(ascii: "\\") || next == UInt8(ascii: "\"") {
                bytes.append(rest.removeFirst())
            } else if rest.count >= 3, rest[0] == UInt8(ascii: "x"),
                let value = UInt8(String(decoding: rest[1...2], as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                rest.removeFirst(3)
            } else {
                self = .invalid("an escape other than \\\\, \\\" or \\xNN")
                return
            }
        }
        self = bytes.isEmpty ? .invalid("no bytes") : .token(bytes)
    }
}

/// libFuzzer's common mutations, one to four to an input: a bit flipped, a byte set to a
/// boundary value, bytes inserted, deleted or repeated, two seeds spliced, a dictionary token
/// inserted or written over the bytes.
struct SeedMutator {
    let seeds: [[UInt8]]
    let tokens: [[UInt8]]
    var random: SeededRandom

    mutating func next() -> [UInt8] {
        var bytes = seeds[Int.random(in: 0..<seeds.count, using: &random)]
        for _ in 0..<Int.random(in: 1...4, using: &random) { mutate(&bytes) }
        return bytes
    }

    private mutating func mutate(_ bytes: inout [UInt8]) {
        let at = Int.random(in: 0...bytes.count, using: &random)
        switch Int.random(in: 0..<8, using: &random) {
        case 0 where at < bytes.count: bytes[at] ^= 1 << UInt8.random(in: 0..<8, using: &random)
        case 1 where at < bytes.count: bytes[at] = [0x00, 0x01, 0x7F, 0x80, 0xFF].randomElement(using: &random)!
        case 2: bytes.insert(UInt8.random(in: 0...255, using: &random), at: at)
        case 3 where at < bytes.count:
            bytes.removeSubrange(at..<min(bytes.count, at + Int.random(in: 1...16, using: &random)))
        case 4 where at < bytes.count:
            let repeated = bytes[at..<min(bytes.count, at + Int.random(in: 1...16, using: &random))]
            bytes.insert(contentsOf: repeated, at: at)
        case 5:
            let other = seeds[Int.random(in: 0..<seeds.count, using: &random)]
            bytes = Array(bytes[..<at]) + other[Int.random(in: 0...other.count, using: &random)...]
        case 6 where !tokens.isEmpty: bytes.insert(contentsOf: tokens.randomElement(using: &random)!, at: at)
        case 7 where !tokens.isEmpty:
            let token = tokens.randomElement(using: &random)!
            bytes.replaceSubrange(at..<min(bytes.count, at + token.count), with: token)
        default: bytes.insert(UInt8.random(in: 0...255, using: &random), at: at)
        }
    }
}
