/// An error with a message a person can act on. The server maps `code` to a JSON-RPC
/// error code in one place; nothing else knows the numbers.
public struct ScanBridgeError: Error, Sendable, Hashable, CustomStringConvertible {
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case invalidParams, notFound, conflict, forbidden, unavailable, overloaded, internalError
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// A parameter is missing, ill-typed or malformed.
        public static let invalidParams = Code(.invalidParams)
        /// No such device, card, product, order or subscription.
        public static let notFound = Code(.notFound)
        /// The request contradicts the current state (already attached, linked elsewhere).
        public static let conflict = Code(.conflict)
        /// The caller's role may not do this.
        public static let forbidden = Code(.forbidden)
        /// A driver, device or the database cannot serve the request now.
        public static let unavailable = Code(.unavailable)
        /// Too many subscriptions or pending requests.
        public static let overloaded = Code(.overloaded)
        /// A bug: logged with detail.
        public static let internalError = Code(.internalError)

        public var description: String { base.rawValue }
    }

    public var code: Code
    public var message: String
    /// The parameter at fault, for `invalidParams`.
    public var field: String?

    public init(_ code: Code, _ message: String, field: String? = nil) {
        self.code = code
        self.message = message
        self.field = field
    }

    public static func invalidParams(_ message: String, field: String) -> ScanBridgeError {
        ScanBridgeError(.invalidParams, message, field: field)
    }

    public static func notFound(_ message: String) -> ScanBridgeError { ScanBridgeError(.notFound, message) }
    public static func conflict(_ message: String) -> ScanBridgeError { ScanBridgeError(.conflict, message) }
    public static func unavailable(_ message: String) -> ScanBridgeError { ScanBridgeError(.unavailable, message) }
    public static func overloaded(_ message: String) -> ScanBridgeError { ScanBridgeError(.overloaded, message) }

    public var description: String { message }
}
