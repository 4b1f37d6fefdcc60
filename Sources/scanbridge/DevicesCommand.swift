import ArgumentParser
import ScanBridgeClient
import ScanBridgeModel

/// `scanbridge devices`: the devices the daemon knows; `candidates`, `claim` and `release`:
/// which discovered USB devices are read as scanners; `reset`: a USB port reset of one.
struct DevicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List the scanning devices the daemon knows; claim, release or reset USB scanners.",
        subcommands: [List.self, Candidates.self, Claim.self, Release.self, Reset.self],
        defaultSubcommand: List.self)
}

extension DevicesCommand {
    /// `scanbridge devices [list] [--json]` → `devices.list`.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the scanning devices the daemon knows, with their state.")

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
            abstract:
                "List the input, hidraw, ttyACM and video nodes discovery sees, whether each is read as a scanner or camera, and why."
        )

        @OptionGroup var connection: ConnectionOptions

        @Flag(help: "Print the daemon's answer ({\"candidates\": [...]}) as JSON.")
        var json = false

        func run() async throws {
            try await connection.callAndPrint("devices.candidates", [:], json: json) { answer in
                let nodes = answer["candidates"]?.arrayValue ?? []
                let table =
                    nodes.isEmpty
                    ? "discovery sees no keyboard, hidraw, ttyACM or video capture node"
                    : TextTable.render(
                        header: ["ID", "DRIVER", "USB", "READ", "WHY", "NAME", "PATH"],
                        rows: nodes.map { node in
                            func field(_ key: String) -> String { node[key]?.stringValue ?? "-" }
                            return [
                                field("id"), field("driver"), field("usb"), node["read"]?.boolValue == true ? "yes" : "no",
                                field("reason"), field("name"), field("path"),
                            ]
                        })
                return table + "\n" + DevicesCommand.overrides(answer)
            }
        }
    }

    /// `scanbridge devices claim ID` → `devices.claim`.
    struct Claim: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Read a USB device as a scanner from now on, whatever its maker; kept across restarts.",
            discussion:
                "ID is a device id from `scanbridge devices candidates`, or vvvv:pppp for every device of one USB product.")

        @OptionGroup var connection: ConnectionOptions

        @Argument(help: "A device id (evdev:0627:0001:SERIAL) or vvvv:pppp.")
        var id: String

        @Flag(help: "Print the daemon's answer ({\"claimed\": [...], \"released\": [...]}) as JSON.")
        var json = false

        func run() async throws {
            try await DevicesCommand.choose("devices.claim", id, "claimed", connection, json: json)
        }
    }

    /// `scanbridge devices release ID` → `devices.release`.
    struct Release: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Never read a USB device as a scanner again, even from a scanner maker; undoes a claim; kept across restarts.")

        @OptionGroup var connection: ConnectionOptions

        @Argument(help: "A device id (evdev:0627:0001:SERIAL) or vvvv:pppp.")
        var id: String

        @Flag(help: "Print the daemon's answer ({\"claimed\": [...], \"released\": [...]}) as JSON.")
        var json = false

        func run() async throws {
            try await DevicesCommand.choose("devices.release", id, "released", connection, json: json)
        }
    }

    /// `scanbridge devices reset ID` → `devices.reset`.
    struct Reset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Reset the USB port of a device that hangs, as unplugging and plugging it in again would.",
            discussion:
                "ID is a device id from `scanbridge devices`: a scanner, a camera or a USB card reader. The device comes back under the same id."
        )

        @OptionGroup var connection: ConnectionOptions

        @Argument(help: "A device id (usb:0403:6001:SERIAL, pcsc:…).")
        var id: String

        @Flag(help: "Print the daemon's answer ({\"id\", \"usb\", \"path\", \"reenumerated\"}) as JSON.")
        var json = false

        func run() async throws {
            try await connection.callAndPrint("devices.reset", ["id": .string(id)], json: json) { answer in
                let usb = answer["usb"]?.stringValue ?? "?"
                let path = answer["path"]?.stringValue ?? "?"
                let again = answer["reenumerated"]?.boolValue == true ? "; it came back as a new USB device" : ""
                return "\(id) reset (USB \(usb) at \(path))\(again)"
            }
        }
    }

    /// Calls `method` with `id` and prints the claims and releases now in force.
    static func choose(
        _ method: String, _ id: String, _ done: String, _ connection: ConnectionOptions, json: Bool
    ) async throws {
        try await connection.callAndPrint(method, ["id": .string(id)], json: json) { "\(id) \(done)\n" + overrides($0) }
    }

    /// The `claimed` and `released` lists of an answer, one line each.
    static func overrides(_ answer: JSONValue) -> String {
        func keys(_ list: String) -> String {
            let keys = answer[list]?.arrayValue?.compactMap(\.stringValue) ?? []
            return keys.isEmpty ? "none" : keys.joined(separator: " ")
        }
        return "claimed:  \(keys("claimed"))\nreleased: \(keys("released"))"
    }
}
