/// Why a Secure Unique NFC message was not verified, or why a key or block was refused.
public struct SUNError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
