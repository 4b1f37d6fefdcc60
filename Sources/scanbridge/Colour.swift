import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether the CLI writes colour: the one decision, for standard output and standard error
/// each. Colour goes only to a terminal, and never when `NO_COLOR` is set to anything but the
/// empty string (the no-color.org convention), so a pipe, a file or a log gets plain text.
enum Colour {
    /// A line's meaning, shown as a colour where colour is allowed.
    enum Style {
        case plain, success, failure, warning

        /// The SGR parameter of its colour; nil: none.
        var code: String? {
            switch self {
            case .plain: nil
            case .success: "32"
            case .failure: "31"
            case .warning: "33"
            }
        }
    }

    /// Whether colour is allowed on a stream that `isTerminal` or not, with `environment`.
    static func allowed(isTerminal: Bool, environment: [String: String]) -> Bool {
        isTerminal && (environment["NO_COLOR"] ?? "").isEmpty
    }

    static let onStandardOutput = allowed(
        isTerminal: isatty(STDOUT_FILENO) == 1, environment: ProcessInfo.processInfo.environment)
    static let onStandardError = allowed(
        isTerminal: isatty(STDERR_FILENO) == 1, environment: ProcessInfo.processInfo.environment)

    /// Whether colour is allowed on `descriptor` (standard output or standard error).
    static func allowed(on descriptor: Int32) -> Bool {
        descriptor == STDOUT_FILENO ? onStandardOutput : descriptor == STDERR_FILENO ? onStandardError : false
    }

    /// `text` (already made visible) wrapped in `style`'s colour when `descriptor` allows it.
    static func wrap(_ text: String, _ style: Style, on descriptor: Int32) -> String {
        guard let code = style.code, allowed(on: descriptor) else { return text }
        return "\u{1B}[\(code)m" + text + "\u{1B}[0m"
    }
}
