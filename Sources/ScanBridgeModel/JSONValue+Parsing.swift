/// A strict RFC 8259 parser into `JSONValue`, used for every message the daemon and its
/// clients receive. It exists because decoding `JSONValue` through `JSONDecoder` costs a
/// thrown error per type guess, on every request (docs/architecture.md, Design decisions).
/// Nesting is bounded, so hostile input (a megabyte of `[`) cannot exhaust the stack.
extension JSONValue {
    public struct ParseError: Error, Hashable, CustomStringConvertible {
        public let offset: Int
        public let reason: String
        public var description: String { "\(reason) at byte \(offset)" }
    }

    /// The deepest nesting of arrays and objects accepted.
    public static let maxDepth = 256

    public init(parsing bytes: some Collection<UInt8>) throws(ParseError) {
        // Copied through contiguous storage where there is one: this generic is not specialized
        // for callers in other modules, and a copy element by element costs a witness call a byte.
        let array = bytes.withContiguousStorageIfAvailable(Array.init) ?? Array(bytes)
        var parser = Parser(bytes: array)
        parser.skipWhitespace()
        self = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == array.count else { throw parser.error("unexpected data after the JSON value") }
    }
}

private struct Parser {
    let bytes: [UInt8]
    var index = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    func error(_ reason: String) -> JSONValue.ParseError {
        JSONValue.ParseError(offset: index, reason: reason)
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    mutating func value(depth: Int) throws(JSONValue.ParseError) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        default: throw error("unexpected character")
        }
    }

    mutating func literal(_ word: String) throws(JSONValue.ParseError) {
        for expected in word.utf8 {
            guard index < bytes.count, bytes[index] == expected else { throw error("invalid literal") }
            index += 1
        }
    }

    mutating func object(depth: Int) throws(JSONValue.ParseError) -> JSONValue {
        guard depth <= JSONValue.maxDepth else { throw error("nested deeper than \(JSONValue.maxDepth) levels") }
        index += 1
        // Room for a request's members (jsonrpc, id, method, params) without growing: each
        // growth rehashed every key.
        var members = [String: JSONValue](minimumCapacity: 4)
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a member name") }
            let key = try string()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
            index += 1
            skipWhitespace()
            members[key] = try value(depth: depth)
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            } else {
                throw error("expected ',' or '}'")
            }
        }
    }

    mutating func array(depth: Int) throws(JSONValue.ParseError) -> JSONValue {
        guard depth <= JSONValue.maxDepth else { throw error("nested deeper than \(JSONValue.maxDepth) levels") }
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try value(depth: depth))
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            } else {
                throw error("expected ',' or ']'")
            }
        }
    }

    mutating func string() throws(JSONValue.ParseError) -> String {
        index += 1
        let start = index
        // Fast path: no escapes.
        var ascii = true
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                // ASCII is valid UTF-8 as it stands; `String(validating:)` runs generic code
                // (type metadata looked up at run time) for every string.
                let text =
                    ascii
                    ? String(decoding: bytes[start..<index], as: UTF8.self)
                    : String(validating: bytes[start..<index], as: UTF8.self)
                guard let text else { throw JSONValue.ParseError(offset: start, reason: "invalid UTF-8 in a string") }
                index += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw error("control character in a string") }
            ascii = ascii && byte < 0x80
            index += 1
        }
        var out = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: out, as: UTF8.self) else {
                    throw JSONValue.ParseError(offset: start, reason: "invalid UTF-8 in a string")
                }
                index += 1
                return text
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { throw error("unexpected end of input") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"): out.append(contentsOf: try unicodeEscape())
                default: throw error("invalid escape")
                }
            default:
                if byte < 0x20 { throw error("control character in a string") }
                out.append(byte)
                index += 1
            }
        }
        throw error("unterminated string")
    }

    /// `\uXXXX` (the `\u` already read), joining surrogate pairs; returns UTF-8.
    mutating func unicodeEscape() throws(JSONValue.ParseError) -> [UInt8] {
        var scalar = try hex4()
        if (0xD800...0xDBFF).contains(scalar) {
            guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                throw error("lone surrogate")
            }
            index += 2
            let low = try hex4()
            guard (0xDC00...0xDFFF).contains(low) else { throw error("invalid surrogate pair") }
            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
        } else if (0xDC00...0xDFFF).contains(scalar) {
            throw error("lone surrogate")
        }
        guard let unicode = Unicode.Scalar(scalar) else { throw error("invalid code point") }
        return Array(String(Character(unicode)).utf8)
    }

    mutating func hex4() throws(JSONValue.ParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("unexpected end of input") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("invalid \\u escape")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    mutating func number() throws(JSONValue.ParseError) -> JSONValue {
        let start = index
        var isInteger = true
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("invalid number") }
            while index < bytes.count, isDigit(bytes[index]) { index += 1 }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger, let integer = Int64(text) { return .int(integer) }
        guard let double = Double(text), double.isFinite else {
            throw JSONValue.ParseError(offset: start, reason: "number out of range")
        }
        return .double(double)
    }

    func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}
