/// A decoder over Yams's that notes, in `AskedKeys`, the keys of every mapping and the ones
/// the type being decoded asks for. Everything else is Yams's: the values, their types and
/// the coding paths its errors name.
struct KeyCheckingDecoder: Decoder {
    let base: any Decoder
    let asked: AskedKeys

    var codingPath: [any CodingKey] { base.codingPath }
    var userInfo: [CodingUserInfoKey: Any] { base.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        let present = try base.container(keyedBy: NameKey.self).allKeys.map(\.stringValue)
        let ask = asked.mapping(at: codingPath, present: present)
        return KeyedDecodingContainer(KeyedContainer(base: try base.container(keyedBy: type), asked: asked, ask: ask))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        UnkeyedContainer(base: try base.unkeyedContainer(), asked: asked)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        try base.singleValueContainer()
    }
}

/// Any key of a mapping, by its name.
struct NameKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }

    init(_ name: String) { stringValue = name }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
