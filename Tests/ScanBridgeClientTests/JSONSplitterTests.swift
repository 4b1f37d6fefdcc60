import ScanBridgeClient
import Testing

@Suite("JSON splitter")
struct JSONSplitterTests {
    /// What splitting gives: an element (`line: text`) or the error that ended it.
    enum Split: Equatable, CustomStringConvertible {
        case element(Int, String)
        case error(Int?, String)

        var description: String {
            switch self {
            case .element(let line, let text): "\(line): \(text)"
            case .error(let line, let message): "\(line.map(String.init) ?? "-"): !\(message)"
            }
        }
    }

    static func split(_ input: [UInt8], chunkSize: Int) -> (layout: JSONSplitter.Layout?, out: [Split]) {
        let (results, splitter) = JSONSplitter.results(of: input, chunkSize: chunkSize, parser: JSONSplitter())
        return (
            splitter.layout,
            results.map { result in
                switch result {
                case .success(let element): .element(element.line, String(decoding: element.bytes, as: UTF8.self))
                case .failure(let error): .error(error.line, error.message)
                }
            }
        )
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var input: [UInt8]
        var layout: JSONSplitter.Layout?
        var expected: [Split]
        var testDescription: String { name }

        init(_ name: String, _ input: String, _ layout: JSONSplitter.Layout?, _ expected: [Split]) {
            self.name = name
            self.input = Array(input.utf8)
            self.layout = layout
            self.expected = expected
        }
    }

    static let cases: [Case] = [
        Case("an array of objects", #"[{"a":1},{"b":2}]"#, .array, [.element(1, #"{"a":1}"#), .element(1, #"{"b":2}"#)]),
        Case(
            "nested arrays and objects", #"[{"a":[1,[2,{"b":[]}]],"c":{"d":{}}}, {"e":[{"f":[3]}]}]"#, .array,
            [.element(1, #"{"a":[1,[2,{"b":[]}]],"c":{"d":{}}}"#), .element(1, #"{"e":[{"f":[3]}]}"#)]),
        Case(
            "strings holding brackets, commas and escaped quotes",
            #"[{"s":"a],[}{,"}, {"t":"say \"]\", then \\"}, {"u":"\\\"[" }]"#, .array,
            [.element(1, #"{"s":"a],[}{,"}"#), .element(1, #"{"t":"say \"]\", then \\"}"#), .element(1, #"{"u":"\\\"[" }"#)]),
        Case(
            "pretty-printed, each element on the line it starts", "[\n  {\n    \"a\": 1\n  },\n  {\"b\": [\n 2]}\n]\n", .array,
            [.element(2, "{\n    \"a\": 1\n  }"), .element(5, "{\"b\": [\n 2]}")]),
        Case(
            "scalars are elements too", #"[1, "two", null, true]"#, .array,
            [.element(1, "1"), .element(1, #""two""#), .element(1, "null"), .element(1, "true")]),
        Case("an empty array", " \n [ \n ] \n", .array, []),
        Case(
            "a broken element is still split off", #"[{"a":1} {"b":2}, {"c":3}]"#, .array,
            [.element(1, #"{"a":1} {"b":2}"#), .element(1, #"{"c":3}"#)]),
        Case(
            "JSON Lines", "{\"a\":1}\n\n{\"b\":[1,2]}\r\n  {\"c\":\"]\"}  \n", .lines,
            [.element(1, #"{"a":1}"#), .element(3, #"{"b":[1,2]}"#), .element(4, #"{"c":"]"}"#)]),
        Case(
            "JSON Lines: each line stands alone", "{\"a\":1\n{\"b\":2}\n", .lines,
            [.element(1, #"{"a":1"#), .element(2, #"{"b":2}"#)]),
        Case("JSON Lines without a final line break", "\n{\"a\":1}", .lines, [.element(2, #"{"a":1}"#)]),
        Case("a byte order mark is skipped", "\u{FEFF}[{\"a\":1}]", .array, [.element(1, #"{"a":1}"#)]),
        Case("empty input", "  \n", nil, []),
        // Errors in an array end the splitting, naming the line.
        Case(
            "brackets that do not match", "[{\"a\":1},\n{\"b\":[1}]", .array,
            [
                .element(1, #"{"a":1}"#),
                .error(2, "'}' closes a '[': the brackets of the element that starts on line 2 do not match"),
            ]),
        Case(
            "a closing brace too many", "[{\"a\":1}}]", .array,
            [.error(1, "'}' closes nothing: the brackets of the element that starts on line 1 do not match")]),
        Case(
            "a trailing comma", "[{\"a\":1},\n]", .array,
            [.element(1, #"{"a":1}"#), .error(2, "the array has an empty element (a comma too many)")]),
        Case("two commas", "[1,,2]", .array, [.element(1, "1"), .error(1, "the array has an empty element (a comma too many)")]),
        Case(
            "no closing bracket", "[{\"a\":1},\n{\"b\":2}\n", .array,
            [
                .element(1, #"{"a":1}"#),
                .error(2, "the input ends inside the JSON array: its closing ']' is missing (is the file cut short?)"),
            ]),
        Case(
            "data after the array", "[1]\n[2]", .array,
            [.element(1, "1"), .error(2, "unexpected '[' after the array's closing ']'; an import file holds one array")]),
        Case(
            "not JSON at all", "\n\nname,price\n", nil,
            [
                .error(
                    3,
                    "this is not JSON to import: that is one array of objects, or JSON Lines (one object per line), but this line starts with 'n'"
                )
            ]),
    ]

    @Test(arguments: cases)
    func splits(_ test: Case) {
        let result = Self.split(test.input, chunkSize: .max)
        #expect(result.out == test.expected)
        #expect(result.layout == test.layout)
    }

    /// However the input is cut into chunks, the elements are the same.
    @Test(arguments: cases)
    func chunkBoundariesDoNotMatter(_ test: Case) {
        for size in [1, 2, 3, 7] {
            #expect(Self.split(test.input, chunkSize: size).out == test.expected, "chunks of \(size)")
        }
    }
}
