/// Why a code (UID, barcode, symbology name) was rejected, in words a person can act on.
public struct CodeError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
