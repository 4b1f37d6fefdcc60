/// One record of an NDEF message read from a tag.
public struct NDEFRecord: Sendable, Codable, Hashable {
    /// The record type: `U` (URI), `T` (text), or another NFC Forum type name.
    public var type: String
    public var value: String

    public init(type: String, value: String) {
        self.type = type
        self.value = value
    }
}
