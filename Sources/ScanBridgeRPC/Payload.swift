public import ScanBridgeModel

/// JSON to send: plain values, plus JSON that was already encoded (a journaled event)
/// and is spliced in as is, so an event is encoded once however many clients receive it.
public indirect enum Payload: Sendable {
    case value(JSONValue)
    /// UTF-8 JSON, inserted verbatim.
    case raw([UInt8])
    /// Members in the order written.
    case object([(String, Payload)])
    case array([Payload])

    public static let emptyObject = Payload.object([])

    public static func string(_ text: String) -> Payload { .value(.string(text)) }
    public static func int<I: BinaryInteger>(_ number: I) -> Payload { .value(.int(Int64(number))) }
}

extension Payload {
    /// Encodes any `Encodable` value once, to be spliced into messages.
    public static func encoding(_ value: some Encodable) throws -> Payload {
        .raw(try JSONWriter.encode(value))
    }
}
