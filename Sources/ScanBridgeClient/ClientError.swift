import NIOCore
import NIOPosix

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A failure of the client itself — no daemon, a lost connection, an answer of the wrong
/// shape — as opposed to an `RPCError`, which is the daemon refusing a call.
///
/// `description` is a sentence a person can act on; the CLI prints it as is.
public struct ClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong; compare with the static members.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case noDaemon, untrustedSocket, permissionDenied, connectFailed, connectionClosed, closedByClient, unexpectedResult
        }
        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// Nothing listens at the socket path (no file, or a stale file of a dead daemon).
        public static let noDaemon = Code(.noDaemon)
        /// The socket is in a folder every user may write in, so a daemon answering there
        /// could be any user's: the client does not connect.
        public static let untrustedSocket = Code(.untrustedSocket)
        /// The socket exists but this user may not connect to it.
        public static let permissionDenied = Code(.permissionDenied)
        /// Connecting failed for another reason (path too long, timeout…).
        public static let connectFailed = Code(.connectFailed)
        /// The daemon closed the connection, or it broke.
        public static let connectionClosed = Code(.connectionClosed)
        /// `close()` was called on this client.
        public static let closedByClient = Code(.closedByClient)
        /// A result could not be decoded into the type asked for.
        public static let unexpectedResult = Code(.unexpectedResult)

        /// The code's name, for logs.
        public var description: String { base.rawValue }
    }

    /// What kind of failure this is.
    public var code: Code
    /// A sentence saying what failed and what to do.
    public var message: String
    /// The socket the client was connecting or connected to, when known.
    public var socketPath: String?

    /// An error with this code and sentence.
    public init(_ code: Code, _ message: String, socketPath: String? = nil) {
        self.code = code
        self.message = message
        self.socketPath = socketPath
    }

    /// The sentence, as the CLI prints it.
    public var description: String { message }

    /// No daemon answers at `socketPath`.
    public static func noDaemon(socketPath: String) -> ClientError {
        ClientError(
            .noDaemon,
            "no ScanBridge daemon answers at \(socketPath): start one with `scanbridged` (or `make demo`), "
                + "or point to it with --socket or SCANBRIDGE_SOCKET",
            socketPath: socketPath)
    }

    /// The daemon went away, or the connection broke.
    public static func connectionClosed(socketPath: String?) -> ClientError {
        let place = socketPath.map { " at \($0)" } ?? ""
        return ClientError(
            .connectionClosed,
            "the ScanBridge daemon\(place) closed the connection (it stopped, or it dropped this client); "
                + "check that `scanbridged` still runs and try again",
            socketPath: socketPath)
    }

    static func closedByClient(socketPath: String) -> ClientError {
        ClientError(
            .closedByClient, "this client closed its connection to \(socketPath); connect again to make calls",
            socketPath: socketPath)
    }

    static func unexpectedResult(method: String, expected: String, detail: String) -> ClientError {
        ClientError(
            .unexpectedResult,
            "what the daemon sent for \(method) is not a valid \(expected) (\(detail)); it may speak another protocol version")
    }

    /// Translates what NIO throws on connect into a sentence about the socket.
    static func connecting(to socketPath: String, failure: any Error) -> ClientError {
        if let error = failure as? IOError {
            switch error.errnoCode {
            case ENOENT, ECONNREFUSED, ENOTDIR:
                return .noDaemon(socketPath: socketPath)
            case EACCES, EPERM:
                return ClientError(
                    .permissionDenied,
                    "a ScanBridge daemon socket is at \(socketPath) but this user may not connect to it: "
                        + "join the group that owns it (see `ls -l \(socketPath)`) or run as that user",
                    socketPath: socketPath)
            default:
                let reason = String(cString: strerror(error.errnoCode))
                return ClientError(
                    .connectFailed, "could not connect to the ScanBridge daemon at \(socketPath): \(reason)",
                    socketPath: socketPath)
            }
        }
        if case SocketAddressError.unixDomainSocketPathTooLong = failure {
            return ClientError(
                .connectFailed,
                "the socket path \(socketPath) is too long for a Unix socket (at most 107 bytes): choose a shorter --socket",
                socketPath: socketPath)
        }
        return ClientError(
            .connectFailed, "could not connect to the ScanBridge daemon at \(socketPath): \(failure)",
            socketPath: socketPath)
    }
}
