/// Something wrong with an import's input: a row or element that is skipped (a bad price,
/// a ragged CSV row, an element that is not JSON), or, thrown, a fault that stops the whole
/// import (an unknown column, an unreadable file, a JSON array whose brackets do not match).
///
/// `message` reads on its own after the location, as `catalog.csv:17: <message>`.
public struct ImportProblem: Error, Sendable, Hashable, CustomStringConvertible {
    /// The physical line (1-based) where the row or element starts; nil when the problem is
    /// about the input as a whole.
    public var line: Int?
    /// A sentence saying what is wrong and, where it helps, what to do.
    public var message: String
    /// The field at fault (`price`, `devices[1].serial`), when one is.
    public var field: String?

    public init(line: Int?, _ message: String, field: String? = nil) {
        self.line = line
        self.message = message
        self.field = field
    }

    /// `line 17: <message>`, or the message alone.
    public var description: String {
        line.map { "line \($0): \(message)" } ?? message
    }

    /// `catalog.csv:17: <message>` (or `catalog.csv: <message>`), as compilers report places.
    public func located(in source: String) -> String {
        "\(source):\(line.map { "\($0):" } ?? "") \(message)"
    }
}
