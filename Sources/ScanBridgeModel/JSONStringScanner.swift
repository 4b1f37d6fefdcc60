/// Follows JSON text byte by byte to tell the bytes inside strings from the rest, for code
/// that scans JSON for its structure without parsing it (a batch's elements, an array's
/// elements in an import).
public struct JSONStringScanner: Sendable {
    public var inString: Bool { inside }
    @usableFromInline var inside = false
    @usableFromInline var escaped = false

    public init() {}

    /// Takes the next byte; true when it belongs to a string (its opening and closing quotes
    /// included), so it is no structural character. Inlinable: it runs once a byte.
    @inlinable
    public mutating func consume(_ byte: UInt8) -> Bool {
        if inside {
            if escaped {
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                inside = false
            }
            return true
        }
        if byte == UInt8(ascii: "\"") {
            inside = true
            return true
        }
        return false
    }
}
