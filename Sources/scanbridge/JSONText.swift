import Foundation
import ScanBridgeModel
import ScanBridgeRPC

/// JSON as text for the terminal: pretty for one result, compact for a stream of lines.
enum JSONText {
    /// Indented by two spaces, keys sorted, empty containers as `{}` and `[]`: for a person
    /// reading one result.
    static func pretty(_ value: JSONValue) -> String {
        var out = ""
        writePretty(value, indent: "", into: &out)
        return TerminalText.json(out)
    }

    /// One line, keys sorted: for NDJSON and for `jq`.
    static func compact(_ value: JSONValue) -> String {
        TerminalText.json(String(decoding: JSONWriter.bytes(.value(value)), as: UTF8.self))
    }

    /// A string, a number or anything else as words in a sentence: a string without its
    /// quotes, since an amount may come as either (`"12.34"`, `1234`).
    static func scalar(_ value: JSONValue) -> String {
        switch value {
        case .string(let text): TerminalText.visible(text)
        case .int(let number): "\(number)"
        case .double(let number): "\(number)"
        default: compact(value)
        }
    }

    /// Parses JSON given on the command line.
    static func parse(_ text: String) throws -> JSONValue {
        try JSONValue(parsing: Array(text.utf8))
    }

    private static func writePretty(_ value: JSONValue, indent: String, into out: inout String) {
        let inner = indent + "  "
        switch value {
        case .array(let elements) where !elements.isEmpty:
            out += "[\n"
            for (index, element) in elements.enumerated() {
                out += inner
                writePretty(element, indent: inner, into: &out)
                out += index < elements.count - 1 ? ",\n" : "\n"
            }
            out += indent + "]"
        case .object(let members) where !members.isEmpty:
            out += "{\n"
            let keys = members.keys.sorted()
            for (index, key) in keys.enumerated() {
                out += inner + compact(.string(key)) + ": "
                writePretty(members[key] ?? .null, indent: inner, into: &out)
                out += index < keys.count - 1 ? ",\n" : "\n"
            }
            out += indent + "}"
        default:
            out += compact(value)
        }
    }
}
