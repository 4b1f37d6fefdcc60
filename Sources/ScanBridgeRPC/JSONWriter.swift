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
        var output = JSONOutput(capacity: 0)
        output.value(value)
        out.append(contentsOf: output.bytes)
    }

    static func writeString(_ text: String, into out: inout [UInt8]) {
        JSONOutput.appendString(text, to: &out)
    }
}
