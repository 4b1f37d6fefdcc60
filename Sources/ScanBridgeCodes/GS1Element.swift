/// One AI and its data from a GS1 element string or Digital Link, e.g. `(10) ABC1`.
public struct GS1Element: Sendable, Hashable, CustomStringConvertible {
    /// The Application Identifier, e.g. `01` or `3103`.
    public let ai: String
    /// The data after the AI, exactly as encoded (GTINs always 14 digits).
    public let value: String

    public init(ai: String, value: String) {
        self.ai = ai
        self.value = value
    }

    /// The table entry for ``ai``: title, format, decimals.
    public var identifier: GS1ApplicationIdentifier? { GS1ApplicationIdentifier.lookup(ai) }

    /// The human-readable form `(01)09506000134352`.
    public var description: String { "(\(ai))\(value)" }
}
