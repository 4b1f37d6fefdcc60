import ArgumentParser
import ScanBridgeClient
import ScanBridgeCore

/// `scanbridge devices`: the devices the daemon knows; `candidates`, `claim` and `release`:
/// which discovered USB devices are read as scanners.
struct DevicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List the scanning devices the daemon knows; claim or release USB scanners.",
        subcommands: [List.self, Candidates.self, Claim.self, Release.self],
        defaultSubcommand: List.self)
}

extension DevicesCommand {
    /// `scanbridge devices [list] [--json]` → `devices.list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the scanning devices the daemon knows, with their state (the default).")

        @OptionGroup var connection: ConnectionOptions

        @Flag(help: "Print the daemon's answer ({\"devices\": [...]}) as JSON.")
        var json = false

        func run() async throws {
            try await connection.withClient { client in
                if json {
                    await Console.out(JSONText.pretty(try await client.call("devices.list")))
                    return
                }
                let devices = try await client.devices()
                if devices.isEmpty {
                    await Console.out("no devices; attach a mock one with `scanbridge mock attach barcode`")
                } else {
                    await Console.out(EventFormatter().table(devices))
                }
            }
        }
    }

    /// `scanbridge devices candidates [--json]` → `devices.candidates`.
    struct Candidates: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the input, hidraw and ttyACM nodes discovery sees, whether each is read as a scanner, and why.")

        @OptionGroup var connection: ConnectionOptions

        @Flag(help: "Print the daemon's answer ({\"candidates\": [...]}) as JSON.")
        var json = false

        func run() async throws {
            try await connection.withClient { client in
                if json {
                    await Console.out(JSONText.pretty(try await client.call("devices.candidates")))
                    return
                }
                let answer = try await client.call("devices.candidates", as: Answer.self)
                let candidates = answer.candidates.isEmpty
                    ? "discovery sees no keyboard, hidraw or ttyACM node"
                    : TextTable.render(header: ["ID", "DRIVER", "USB", "READ", "WHY", "NAME", "PATH"], rows: answer.candidates.map { node in
                        [node.id, node.driver, node.usb ?? "-", node.read ? "yes" : "no", node.reason, node.name ?? "-", node.path]
                    })
                await Console.out(candidates + "\n" + DevicesCommand.text(ScannerOverrides(claimed: answer.claimed, released: answer.released)))
            }
        }

        private struct Answer: Decodable {
            var candidates: [ScannerCandidate]
            var claimed: [String]
            var released: [String]
        }
    }

    /// `scanbridge devices claim ID` → `devices.claim`.
    struct Claim: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Read a USB device as a scanner from now on, whatever its maker; kept across restarts.",
            discussion: "ID is a device id from `scanbridge devices candidates`, or vvvv:pppp for every device of one USB product.")

        @OptionGroup var connection: ConnectionOptions

        @Argument(help: "A device id (evdev:0627:0001:SERIAL) or vvvv:pppp.")
        var id: String

        func run() async throws {
            try await DevicesCommand.choose("devices.claim", id, "claimed", connection)
        }
    }

    /// `scanbridge devices release ID` → `devices.release`.
    struct Release: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Never read a USB device as a scanner again, even from a scanner maker; undoes a claim; kept across restarts.")

        @OptionGroup var connection: ConnectionOptions

        @Argument(help: "A device id (evdev:0627:0001:SERIAL) or vvvv:pppp.")
        var id: String

        func run() async throws {
            try await DevicesCommand.choose("devices.release", id, "released", connection)
        }
    }

    /// Calls `method` with `id` and prints the claims and releases now in force.
    static func choose(_ method: String, _ id: String, _ done: String, _ connection: ConnectionOptions) async throws {
        try await connection.withClient { client in
            let overrides = try await client.call(method, ["id": .string(id)], as: ScannerOverrides.self)
            await Console.out("\(id) \(done)\n" + text(overrides))
        }
    }

    /// The claims and releases in force, one line each.
    static func text(_ overrides: ScannerOverrides) -> String {
        "claimed:  \(overrides.claimed.isEmpty ? "none" : overrides.claimed.joined(separator: " "))\n"
            + "released: \(overrides.released.isEmpty ? "none" : overrides.released.joined(separator: " "))"
    }
}
