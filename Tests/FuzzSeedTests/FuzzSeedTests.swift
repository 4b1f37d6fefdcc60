import Foundation
import FuzzSupport
import Testing

@testable import FuzzTargets

/// Every committed seed of every fuzz target (Fuzz/Corpus/<target>/), through the target's
/// own test, in the plain debug build: a seed that crashes a target fails `make test`. And
/// each target's dictionary, which libFuzzer refuses whole for one bad line. The search for
/// new inputs, with AddressSanitizer and libFuzzer, is `make fuzz`'s.
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

    static let fuzz = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz")
    static let corpus = fuzz.appendingPathComponent("Corpus")
    static let dictionaries = fuzz.appendingPathComponent("Dictionaries")

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
