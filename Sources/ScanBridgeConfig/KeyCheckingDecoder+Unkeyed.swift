extension KeyCheckingDecoder {
    /// A list: its mappings (the entries of `mock:`, of `layouts:`) are checked like any other.
    struct UnkeyedContainer: UnkeyedDecodingContainer {
        var base: any UnkeyedDecodingContainer
        let asked: AskedKeys

        var codingPath: [any CodingKey] { base.codingPath }
        var count: Int? { base.count }
        var isAtEnd: Bool { base.isAtEnd }
        var currentIndex: Int { base.currentIndex }

        mutating func decodeNil() throws -> Bool { try base.decodeNil() }
        mutating func decode(_ type: Bool.Type) throws -> Bool { try base.decode(type) }
        mutating func decode(_ type: String.Type) throws -> String { try base.decode(type) }
        mutating func decode(_ type: Double.Type) throws -> Double { try base.decode(type) }
        mutating func decode(_ type: Float.Type) throws -> Float { try base.decode(type) }
        mutating func decode(_ type: Int.Type) throws -> Int { try base.decode(type) }
        mutating func decode(_ type: Int8.Type) throws -> Int8 { try base.decode(type) }
        mutating func decode(_ type: Int16.Type) throws -> Int16 { try base.decode(type) }
        mutating func decode(_ type: Int32.Type) throws -> Int32 { try base.decode(type) }
        mutating func decode(_ type: Int64.Type) throws -> Int64 { try base.decode(type) }
        mutating func decode(_ type: UInt.Type) throws -> UInt { try base.decode(type) }
        mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try base.decode(type) }
        mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try base.decode(type) }
        mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try base.decode(type) }
        mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try base.decode(type) }

        mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
            try T(from: KeyCheckingDecoder(base: try base.superDecoder(), asked: asked))
        }

        mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            try KeyCheckingDecoder(base: try base.superDecoder(), asked: asked).container(keyedBy: type)
        }

        mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
            UnkeyedContainer(base: try base.nestedUnkeyedContainer(), asked: asked)
        }

        mutating func superDecoder() throws -> any Decoder {
            KeyCheckingDecoder(base: try base.superDecoder(), asked: asked)
        }
    }
}
