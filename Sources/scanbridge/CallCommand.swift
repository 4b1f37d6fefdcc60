import ArgumentParser
import ScanBridgeClient
import ScanBridgeModel

/// `scanbridge call METHOD [JSON]`: any method of the protocol, for scripts and debugging.
struct CallCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "call",
        abstract: "Call any protocol method and print its result as JSON.",
        discussion: """
            Examples:
              scanbridge call bridge.hello
              scanbridge call events.recent '{"limit": 5}'
              scanbridge call products.lookup '{"code": "5901234123457"}'
            An error answer is printed as `error CODE: message` on standard error and exits with \
            status 1, or 3 for -32003 (your role may not).
            """)

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: "The method, e.g. devices.list.")
    var method: String

    @Argument(help: "The params: a JSON object (default {}).")
    var params: String?

    /// The result is JSON either way; accepted so that a script may pass --json to every command.
    @Flag(help: "The result is JSON either way; accepted like every command's --json.")
    var json = false

    func validate() throws {
        _ = try parsedParams()
    }

    func run() async throws {
        let params = try parsedParams()
        try await connection.withClient { client in
            await Console.out(JSONText.pretty(try await client.call(method, params)))
        }
    }

    private func parsedParams() throws -> JSONValue {
        guard let params else { return .object([:]) }
        let value: JSONValue
        do {
            value = try JSONText.parse(params)
        } catch {
            throw ValidationError(
                "the params are not valid JSON (\(error)); quote them for the shell, e.g. '{\"limit\": 5}'")
        }
        switch value {
        case .object, .array: return value
        default: throw ValidationError("the params must be a JSON object (or array), not \(value.typeName)")
        }
    }
}
