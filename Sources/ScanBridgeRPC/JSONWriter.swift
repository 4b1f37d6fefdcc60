import Foundation
import ScanBridgeModel

/// Writes `Payload`s as compact JSON (one line, no pretty-printing), through the same
/// `JSONOutput` that encodes events.
package enum JSONWriter {
    package static func bytes(_ payload: Payload) -> [UInt8] {
        var out = JSONOutput()
        write(payload, into: &out)
        return out.bytes
    }

    package static func encode(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .withoutEscapingSlashes
        return Array(try encoder.encode(value))
    }

    static func write(_ payload: Payload, into out: inout JSONOutput) {
        switch payload {
        case .value(let value): out.value(value)
        case .raw(let bytes): out.raw(bytes)
        case .object(let members):
            out.beginObject()
            for (key, value) in members {
                out.key(key)
                write(value, into: &out)
            }
            out.endObject()
        case .array(let elements):
            out.beginArray()
            for element in elements { write(element, into: &out) }
            out.endArray()
        }
    }
}
