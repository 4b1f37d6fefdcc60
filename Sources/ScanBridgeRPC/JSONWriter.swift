import Foundation
import ScanBridgeCore

/// Writes `Payload`s as compact JSON (one line, no pretty-printing).
public enum JSONWriter {
    public static func bytes(_ payload: Payload) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(payload, into: &out)
        return out
    }

    public static func encode(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        return Array(try encoder.encode(value))
    }

    public static func write(_ payload: Payload, into out: inout [UInt8]) {
        switch payload {
        case .value(let value): write(value, into: &out)
        case .raw(let bytes): out.append(contentsOf: bytes)
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                writeString(key, into: &out)
                out.append(UInt8(ascii: ":"))
                write(value, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        case .array(let elements):
            out.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                write(element, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        }
    }

    public static func write(_ value: JSONValue, into out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let flag): out.append(contentsOf: (flag ? "true" : "false").utf8)
        case .int(let number): out.append(contentsOf: String(number).utf8)
        case .double(let number):
            // JSON has no NaN or infinity.
            out.append(contentsOf: (number.isFinite ? "\(number)" : "null").utf8)
        case .string(let text): writeString(text, into: &out)
        case .array(let elements): write(.array(elements.map(Payload.value)), into: &out)
        case .object(let members):
            write(.object(members.sorted { $0.key < $1.key }.map { ($0.key, .value($0.value)) }), into: &out)
        }
    }

    static func writeString(_ text: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\n"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case UInt8(ascii: "\t"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: "\\u00".utf8)
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
