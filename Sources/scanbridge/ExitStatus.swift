import ArgumentParser
import ScanBridgeClient
import ScanBridgeRPC

/// The exit statuses a script can rely on (docs/cli.md, Exit statuses), and
/// the one place that decides which a failure gets. Every command ends through these.
enum ExitStatus {
    /// 1: a negative answer: nothing found, doctor's problems, skipped rows, an error answer.
    static let negative = ExitCode(1)
    /// 2: the daemon cannot be reached: no socket, nobody listening, the connection lost
    /// before the answer. Trying again later may work.
    static let unreachable = ExitCode(2)
    /// 3: refused by role: the daemon's `-32003`, or a socket this user may not open. Trying
    /// again as the same user will not work.
    static let refused = ExitCode(3)
    /// 64 (EX_USAGE): a bad option or argument; ArgumentParser's `ValidationError` exits so.
    static let usage = ExitCode.validationFailure

    /// The status for a failure the daemon or the connection caused.
    static func of(_ error: any Error) -> ExitCode {
        switch error {
        case let error as RPCError:
            // -32003 (docs/protocol.md, Errors) is the one code that means "your role may not".
            return error.code == RPCError.forbidden ? refused : negative
        case let error as ClientError:
            switch error.code {
            case .noDaemon, .connectFailed, .connectionClosed, .untrustedSocket: return unreachable
            case .permissionDenied: return refused
            default: return negative
            }
        case let code as ExitCode:
            return code
        default:
            return negative
        }
    }
}
