/// Follows JSON text byte by byte to tell the bytes inside strings from the rest, for code
/// that scans JSON for its structure without parsing it (a batch's elements, an array's
/// elements in an import).
public struct JSONStringScanner: Sendable {
    public private(set) var inString = false
    private var escaped = false

    public init() {}

    /// Takes the next byte; true when it belongs to a string (its opening and closing quotes
    /// included), so it is no structural character.
    public mutating func consume(_ byte: UInt8) -> Bool {
        if inString {
            if escaped {
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                inString = false
            }
            return true
        }
        if byte == UInt8(ascii: "\"") {
            inString = true
            return true
        }
        return false
    }
}
