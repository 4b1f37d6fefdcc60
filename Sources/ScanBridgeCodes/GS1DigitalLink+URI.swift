/// Just enough URI handling for Digital Link (RFC 3986): scheme, path, query, and
/// percent-decoding. No Foundation, so the module stays dependency-free.
extension GS1DigitalLink {
    /// The path and query of an `http` or `https` URI with a host; the fragment is dropped.
    static func pathAndQuery(of uri: String) -> (path: Substring, query: Substring)? {
        guard let colon = uri.firstIndex(of: ":"),
            ["http", "https"].contains(uri[..<colon].lowercased())
        else { return nil }
        let afterScheme = uri[uri.index(after: colon)...]
        guard afterScheme.hasPrefix("//") else { return nil }
        let reference = afterScheme.dropFirst(2).prefix { $0 != "#" }
        let host = reference.prefix { $0 != "/" && $0 != "?" }
        guard !host.isEmpty else { return nil }
        let pathAndQuery = reference.dropFirst(host.count)
        let path = pathAndQuery.prefix { $0 != "?" }
        return (path, pathAndQuery.dropFirst(path.count).dropFirst())
    }

    /// `text` with `%XX` escapes decoded as UTF-8; nil when an escape is malformed or the
    /// bytes are not UTF-8.
    static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var input = text.utf8.makeIterator()
        while let byte = input.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = input.next().flatMap(Hex.nibble), let low = input.next().flatMap(Hex.nibble) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
