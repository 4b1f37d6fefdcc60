extension KeyedDecodingContainer {
    /// A whole number of the config file, refused out of `range` with its key (dotted from the
    /// file's top), its value and the range; nil when not given. Every module that decodes its
    /// own section checks its numbers with this, so each refusal reads the same.
    package func number(_ key: Key, in range: ClosedRange<Int>) throws -> Int? {
        guard let value = try decodeIfPresent(Int.self, forKey: key) else { return nil }
        guard range.contains(value) else {
            let name = (codingPath + [key]).map(\.stringValue).joined(separator: ".")
            throw ScanBridgeError.invalidParams(
                "\(name) is \(value); it must be between \(range.lowerBound) and \(range.upperBound)", field: name)
        }
        return value
    }
}
