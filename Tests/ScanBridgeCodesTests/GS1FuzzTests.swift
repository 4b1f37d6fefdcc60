import ScanBridgeCodes
import Testing

/// Random input must never crash a parser: it either parses or throws a `CodeError`.
@Suite("Code parsers on random input")
struct GS1FuzzTests {
    /// Knuth's MMIX linear congruential generator: reproducible from its seed, which is
    /// all a fuzz test needs (the high bits are used, the low ones cycle quickly).
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 32 | state << 32
        }
    }

    static let alphabet = Array("0123456789012345678901234567890123456789\u{1D}\u{1D}AaZ()/%?=&#:. é٣５")
    static let stems = [
        "", "", "01", "0109506000134352", "]C1", "(01)", "https://id.gs1.org/01/",
        "https://x.example/01/09506000134352/10/", "https://x.example/01/09506000134352?17=", "20", "22",
    ]

    @Test("random strings", arguments: [1, 2, 3, 4] as [UInt64])
    func randomStrings(seed: UInt64) {
        var random = SeededGenerator(state: seed)
        for _ in 0..<2_000 {
            let stem = Self.stems.randomElement(using: &random) ?? ""
            let tail = (0..<Int.random(in: 0...40, using: &random)).map { _ in Self.alphabet.randomElement(using: &random) ?? "0"
            }
            let text = stem + String(tail)
            _ = try? GS1ElementString.parse(text)
            _ = try? GS1ElementString.parseHumanReadable(text)
            _ = GS1ElementString.strippingSymbologyIdentifier(text)
            _ = try? GS1DigitalLink.parse(text)
            _ = try? GTIN.normalize(text)
            _ = try? UPCE.expand(text)
            _ = GS1ApplicationIdentifier.lookup(prefixOf: text)
            for region in VariableMeasure.Region.all {
                _ = try? VariableMeasure.parse(text, region: region)
            }
        }
    }

    @Test("every prefix of valid data")
    func prefixes() {
        let texts = [
            "0107032069804988100329\u{1D}15210525", "(01)09506000134352(17)251231(10)ABC1",
            "https://id.gs1.org/01/09506000134352/10/ABC%2F1?17=251231&3103=000195", "2011122912346",
        ]
        for text in texts {
            for length in 0...text.count {
                let prefix = String(text.prefix(length))
                _ = try? GS1ElementString.parse(prefix)
                _ = try? GS1ElementString.parseHumanReadable(prefix)
                _ = try? GS1DigitalLink.parse(prefix)
                _ = try? VariableMeasure.parse(prefix, region: .gb)
            }
        }
    }
}
