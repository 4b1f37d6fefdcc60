import ArgumentParser
import Foundation
import ScanBridgeClient
import ScanBridgeModel

/// `scanbridge tokens create|list|revoke`: the access tokens of the daemon's web gateway.
struct TokensCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokens",
        abstract: "Create, list and revoke the access tokens of the web gateway (admin only).",
        subcommands: [Create.self, List.self, Revoke.self])
}

extension TokensCommand {
    /// `tokens create --name NAME --role ROLE [--origin URL]... [--expires WHEN] [--secret-file PATH]`.
    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create an access token; its secret is shown this once.",
            discussion: """
                The secret is printed once and never again: the daemon keeps only its hash. \
                With --secret-file it is written to a new file readable by you alone instead, \
                so that it never shows on the screen nor reaches your shell's history.
                """)

        @OptionGroup var connection: ConnectionOptions

        @Option(help: "What the token is for, e.g. \"web POS, till 1\".")
        var name: String

        @Option(help: "reader, operator or admin: what the token may do, as on the socket.")
        var role: String

        @Option(
            name: .customLong("origin"),
            help: "A web page's origin (https://pos.example.com[:port]) that may use the token. Repeatable.")
        var origins: [String] = []

        @Option(help: "When the token stops working: a duration from now (90m, 12h, 30d, 8w) or a time (2027-01-31T18:00:00Z).")
        var expires: String?

        @Option(help: "Write the secret to this new file (mode 0600) instead of printing it.")
        var secretFile: String?

        @Flag(help: "Print {\"token\": …, \"secret\": …} as JSON.")
        var json = false

        func run() async throws {
            var params: [String: JSONValue] = [
                "name": .string(name), "role": .string(role), "origins": .array(origins.map(JSONValue.string)),
            ]
            if let expires { params["expiresAt"] = .string(EventTime.format(try Self.expiry(expires, from: Date()))) }
            let file = try secretFile.map(SecretFile.init(creating:))
            let result: JSONValue
            do {
                result = try await connection.withClient { try await $0.call("tokens.create", .object(params)) }
            } catch {
                file?.discard()
                throw error
            }
            let secret = result["secret"]?.stringValue ?? ""
            let token = result["token"] ?? .null
            if let file {
                try file.write(secret)
                let note = "The secret is in \(file.path) (mode 0600); it will not be shown again."
                if json {
                    // Standard output carries the one JSON value; the note goes beside it.
                    await Console.out(JSONText.pretty(["token": token, "secretFile": .string(file.path)]))
                    await Console.error(note)
                } else {
                    await Console.out(TokenFormatter.describe(token))
                    await Console.out(note)
                }
                return
            }
            if json {
                await Console.out(JSONText.pretty(result))
                return
            }
            await Console.out(TokenFormatter.describe(token))
            await Console.out("secret: \(secret)")
            await Console.out("Keep this secret now: it will not be shown again (the daemon keeps only its hash).")
        }

        /// `expires` as a time: a duration from `now` (`90m`, `12h`, `30d`, `8w`, `45s`) or an RFC 3339 time.
        static func expiry(_ text: String, from now: Date) throws -> Date {
            let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]
            if let unit = text.last, let seconds = units[unit], let count = Int(text.dropLast()), count > 0,
                count <= 100 * 365 * 86_400
            {
                return now.addingTimeInterval(Double(count) * seconds)
            }
            if let time = EventTime.parse(text) { return time }
            throw ValidationError(
                "--expires takes a duration (90m, 12h, 30d, 8w) or a time such as 2027-01-31T18:00:00Z; got '\(text)'")
        }
    }

    /// `tokens list` → `tokens.list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the access tokens (never their secrets).")

        @OptionGroup var connection: ConnectionOptions

        @Flag(help: "Print the daemon's answer as JSON.")
        var json = false

        func run() async throws {
            try await connection.callAndPrint("tokens.list", [:], json: json) { result in
                TokenFormatter.table(result["tokens"]?.arrayValue ?? [], now: Date())
            }
        }
    }

    /// `tokens revoke ID` → `tokens.revoke`.
    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke an access token: it stops working at once, and its open connections are closed.")

        @OptionGroup var connection: ConnectionOptions

        @Argument(help: "The token's id (tok_…), as `scanbridge tokens list` shows it.")
        var id: String

        @Flag(help: "Print the daemon's answer as JSON.")
        var json = false

        func run() async throws {
            try await connection.callAndPrint("tokens.revoke", ["id": .string(id)], json: json) { _ in "revoked \(id)" }
        }
    }
}
