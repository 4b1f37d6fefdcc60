import ArgumentParser
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeRPC

/// `--socket`, shared by every command that talks to the daemon, and the one place that
/// turns a failure into a sentence on standard error and the exit status `ExitStatus` gives it.
struct ConnectionOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            """
            The daemon's socket (default: $SCANBRIDGE_SOCKET, else $RUNTIME_DIRECTORY/scanbridge.sock or \
            $XDG_RUNTIME_DIR/scanbridge/scanbridge.sock, then /run/scanbridge/scanbridge.sock).
            """,
            valueName: "path"))
    var socket: String?

    /// The socket named by `--socket`, else nil: the client then tries the sockets
    /// docs/protocol.md "The socket" lists.
    var socketPath: String? { socket.flatMap { $0.isEmpty ? nil : $0 } }

    /// The socket a message about the daemon names: the first one tried.
    var shownSocketPath: String { SocketPath.candidates(explicit: socket)[0] }

    /// Connects, runs `body` with the client, and closes.
    ///
    /// A missing daemon, a lost connection or an error answer is printed as one sentence
    /// (an error answer as `error CODE: message`) and ends the command with its status
    /// (`ExitStatus.of`), never with a stack trace.
    func withClient<Result>(_ body: (ScanBridgeClient) async throws -> Result) async throws -> Result {
        let client: ScanBridgeClient
        do {
            client = try await ScanBridgeClient.connect(socketPath: socketPath)
        } catch {
            throw await Self.report(error)
        }
        do {
            let result = try await body(client)
            await client.close()
            return result
        } catch {
            await client.close()
            throw await Self.report(error)
        }
    }

    /// Prints `error` if it is one the daemon or the connection caused; returns what to throw:
    /// its exit status, or `error` itself when it is none of those.
    static func report(_ error: any Error) async -> any Error {
        switch error {
        case let error as RPCError:
            await Console.error("error \(error.code): \(error.message)", style: .failure)
            if let data = error.data {
                await Console.error("  data: \(JSONText.compact(data))")
            }
            return ExitStatus.of(error)
        case let error as ClientError:
            await Console.error(error.message, style: .failure)
            return ExitStatus.of(error)
        default:
            return error
        }
    }
}
