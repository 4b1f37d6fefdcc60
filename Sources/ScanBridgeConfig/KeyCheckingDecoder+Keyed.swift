extension KeyCheckingDecoder {
    /// A mapping: every key asked for is noted, and what is decoded under it is checked too.
    struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
        let base: KeyedDecodingContainer<Key>
        let asked: AskedKeys
        let ask: (String) -> Void

        var codingPath: [any CodingKey] { base.codingPath }
        var allKeys: [Key] { base.allKeys }

        func contains(_ key: Key) -> Bool {
            ask(key.stringValue)
            return base.contains(key)
        }

        func decodeNil(forKey key: Key) throws -> Bool {
            ask(key.stringValue)
            return try base.decodeNil(forKey: key)
        }

        /// A scalar: Yams's, after noting its key.
        private func scalar<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
            ask(key.stringValue)
            return try base.decode(type, forKey: key)
        }

        func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try scalar(type, key) }
        func decode(_ type: String.Type, forKey key: Key) throws -> String { try scalar(type, key) }
        func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try scalar(type, key) }
        func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try scalar(type, key) }
        func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try scalar(type, key) }
        func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try scalar(type, key) }
        func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try scalar(type, key) }
        func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try scalar(type, key) }
        func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try scalar(type, key) }
        func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try scalar(type, key) }
        func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try scalar(type, key) }
        func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try scalar(type, key) }
        func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try scalar(type, key) }
        func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try scalar(type, key) }

        func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
            ask(key.stringValue)
            return try T(from: KeyCheckingDecoder(base: try base.superDecoder(forKey: key), asked: asked))
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
            -> KeyedDecodingContainer<NestedKey>
        {
            ask(key.stringValue)
            return try KeyCheckingDecoder(base: try base.superDecoder(forKey: key), asked: asked).container(keyedBy: type)
        }

        func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
            ask(key.stringValue)
            return UnkeyedContainer(base: try base.nestedUnkeyedContainer(forKey: key), asked: asked)
        }

        func superDecoder() throws -> any Decoder {
            KeyCheckingDecoder(base: try base.superDecoder(), asked: asked)
        }

        func superDecoder(forKey key: Key) throws -> any Decoder {
            ask(key.stringValue)
            return KeyCheckingDecoder(base: try base.superDecoder(forKey: key), asked: asked)
        }
    }
}
