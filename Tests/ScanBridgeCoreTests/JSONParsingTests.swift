import Foundation
import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeTesting
import Testing

/// The parser every received message goes through: strict RFC 8259, bounded nesting, and
/// no input (however hostile) crashes it.
@Suite("JSON parsing")
struct JSONParsingTests {
    static let values: [(String, JSONValue)] = [
        ("null", .null), ("true", true), ("false", false), ("0", 0), ("-12", -12),
        ("1.5", .double(1.5)), ("1e3", .double(1000)), ("-0.25E-2", .double(-0.0025)),
        (#""a\"b\\c\/d\n\t\u00e9\ud83d\ude00""#, .string("a\"b\\c/d\n\té😀")),
        ("[1, [2, []], {}]", [1, [2, []], .object([:])]),
        (#" { "a" : [ true , null ] , "b":"x" } "#, ["a": [true, nil], "b": "x"]),
        ("9223372036854775807", .int(Int64.max)),
        ("9223372036854775808", .double(9_223_372_036_854_775_808)),
        // Unescaped UTF-8, in names and values (ASCII strings take a faster path).
        (#"{"clé":"Café 😀","a":"plain"}"#, ["clé": "Café 😀", "a": "plain"]),
    ]

    @Test("values", arguments: values)
    func parses(_ text: String, expected: JSONValue) throws {
        #expect(try JSONValue(parsing: Array(text.utf8)) == expected)
    }

    @Test(
        "rejects what is not JSON",
        arguments: [
            "", " ", "nul", "tru", "[1,]", "{\"a\":1,}", "[1 2]", "{\"a\" 1}", "{a:1}", "'x'", "01", "1.", ".5", "-",
            "1e", "+1", "NaN", "Infinity", "\"\\x\"", "\"\\u12\"", "\"\\ud800\"", "\"\\udc00x\"", "\"a\nb\"",
            "[1]]", "{} {}", "\"unterminated", "[", "{", "1e400",
        ])
    func rejects(_ text: String) {
        #expect(throws: JSONValue.ParseError.self) { try JSONValue(parsing: Array(text.utf8)) }
    }

    @Test("invalid UTF-8 in a string is an error, not a crash")
    func invalidUTF8() {
        #expect(throws: JSONValue.ParseError.self) { try JSONValue(parsing: [0x22, 0xFF, 0xFE, 0x22]) }
        #expect(throws: JSONValue.ParseError.self) { try JSONValue(parsing: [0x22, 0xC3, 0x22]) }
        // After ASCII: the bytes before a bad one do not make the string pass as ASCII.
        #expect(throws: JSONValue.ParseError.self) { try JSONValue(parsing: [0x22, 0x61, 0x62, 0xFF, 0x22]) }
    }

    @Test("nesting is bounded, so a megabyte of brackets cannot exhaust the stack")
    func deepNesting() throws {
        let deep = [UInt8](repeating: UInt8(ascii: "["), count: 1 << 20)
        #expect(throws: JSONValue.ParseError.self) { try JSONValue(parsing: deep) }
        let allowed = String(repeating: "[", count: JSONValue.maxDepth) + String(repeating: "]", count: JSONValue.maxDepth)
        _ = try JSONValue(parsing: Array(allowed.utf8))
        let objects = String(repeating: "{\"a\":", count: 100_000)
        #expect(throws: JSONValue.ParseError.self) { try JSONValue(parsing: Array(objects.utf8)) }
    }

    @Test("random and mutated input never crashes, and what parses agrees with Foundation")
    func fuzz() throws {
        var generator = SeededRandom(printingSeedFor: "JSONParsingTests.fuzz")
        let seeds = [
            #"{"jsonrpc":"2.0","id":1,"method":"scan.inject","params":{"device":"mock:till-1","text":"5901234123457"}}"#,
            #"[{"jsonrpc":"2.0","method":"devices.list"},{"a":[1,2.5,-3e2,true,false,null,"\u00e9"]}]"#,
        ].map { Array($0.utf8) }
        let alphabet = Array(#"{}[]:,"\ 0123456789.eE+-tfnrulsa"#.utf8) + [0x00, 0x0A, 0xFF, 0xC3]
        for round in 0..<20_000 {
            var bytes = seeds[round % seeds.count]
            for _ in 0..<Int.random(in: 1...6, using: &generator) {
                let position = Int.random(in: 0...bytes.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0 where position < bytes.count: bytes.remove(at: position)
                case 1: bytes.insert(alphabet.randomElement(using: &generator)!, at: position)
                default: if position < bytes.count { bytes[position] = UInt8.random(in: 0...255, using: &generator) }
                }
            }
            guard let value = try? JSONValue(parsing: bytes) else { continue }
            // Whatever we accept, Foundation accepts too, as the same value.
            let foundation = try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
            #expect(
                value == foundation || Self.numericallyEqual(value, foundation),
                "\(String(decoding: bytes, as: UTF8.self)) (seed \(generator.seed))")
        }
    }

    /// `1.0` is a double here and may be an integer to Foundation: equal as numbers.
    static func numericallyEqual(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.double(let x), .int(let y)), (.int(let y), .double(let x)): return x == Double(y)
        case (.array(let x), .array(let y)): return x.count == y.count && zip(x, y).allSatisfy(numericallyEqual)
        case (.object(let x), .object(let y)):
            return x.keys == y.keys && x.keys.allSatisfy { numericallyEqual(x[$0]!, y[$0]!) }
        default: return a == b
        }
    }
}
