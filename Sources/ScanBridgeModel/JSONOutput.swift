/// Compact JSON written straight into bytes, members in the order given: how events are
/// encoded once for the journal and every subscriber, and how RPC messages are framed.
public struct JSONOutput: Sendable {
    public private(set) var bytes: [UInt8] = []
    private var needsComma = [false]

    public init(capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    // MARK: Objects, in order

    public mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma.append(false)
    }
    public mutating func endObject() {
        needsComma.removeLast()
        bytes.append(UInt8(ascii: "}"))
    }
    public mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma.append(false)
    }
    public mutating func endArray() {
        needsComma.removeLast()
        bytes.append(UInt8(ascii: "]"))
    }

    /// Writes a member name; the next value written is its value.
    public mutating func key(_ name: String) {
        separate()
        Self.appendString(name, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        needsComma[needsComma.count - 1] = false
    }

    public mutating func member(_ name: String, _ value: String) {
        key(name)
        string(value)
    }
    public mutating func member(_ name: String, _ value: String?) {
        key(name)
        if let value { string(value) } else { null() }
    }
    public mutating func member(_ name: String, _ value: UInt64) {
        key(name)
        literal(String(value))
    }
    public mutating func member(_ name: String, _ value: JSONValue) {
        key(name)
        self.value(value)
    }

    /// A member only when the value is there (optional fields are left out, not null).
    public mutating func memberIfPresent(_ name: String, _ value: String?) { if let value { member(name, value) } }

    // MARK: Values

    public mutating func string(_ text: String) {
        separate()
        Self.appendString(text, to: &bytes)
    }
    public mutating func null() { literal("null") }

    /// Pre-encoded JSON, inserted as is.
    public mutating func raw(_ json: [UInt8]) {
        separate()
        bytes.append(contentsOf: json)
    }

    /// A number or a literal (`true`, `null`) from its text: a number's text is a small
    /// string, held inline, so nothing is allocated.
    private mutating func literal(_ text: String) {
        separate()
        bytes.append(contentsOf: text.utf8)
    }

    public mutating func value(_ value: JSONValue) {
        switch value {
        case .null: null()
        case .bool(let flag): literal(flag ? "true" : "false")
        case .int(let number): literal(String(number))
        // JSON has no NaN or infinity.
        case .double(let number): literal(number.isFinite ? "\(number)" : "null")
        case .string(let text): string(text)
        case .array(let elements):
            beginArray()
            for element in elements { self.value(element) }
            endArray()
        case .object(let members):
            beginObject()
            // Sorted, so an event's bytes do not depend on hashing; pairs, so no key is hashed again.
            for (name, member) in members.sorted(by: { $0.key < $1.key }) { self.member(name, member) }
            endObject()
        }
    }

    private mutating func separate() {
        if needsComma[needsComma.count - 1] { bytes.append(UInt8(ascii: ",")) }
        needsComma[needsComma.count - 1] = true
    }

    /// A JSON string literal: quotes, backslashes and control characters escaped; UTF-8 kept.
    /// Runs of bytes that need no escape (nearly all of every event) are copied whole, not byte
    /// by byte: every string of every event comes through here.
    public static func appendString(_ text: String, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            var run = 0
            for index in bytes.indices where bytes[index] < 0x20 || bytes[index] == 0x22 || bytes[index] == 0x5C {
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<index]))
                appendEscaped(bytes[index], to: &out)
                run = index + 1
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run...]))
        }
        out.append(UInt8(ascii: "\""))
    }

    private static func appendEscaped(_ byte: UInt8, to out: inout [UInt8]) {
        switch byte {
        case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
        case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
        case UInt8(ascii: "\n"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
        case UInt8(ascii: "\r"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
        case UInt8(ascii: "\t"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
        default:
            let hex = Array("0123456789abcdef".utf8)
            out.append(contentsOf: "\\u00".utf8)
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0xF)])
        }
    }
}
