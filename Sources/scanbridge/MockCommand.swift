import ArgumentParser
import ScanBridgeClient
import ScanBridgeModel

/// `scanbridge mock attach|detach`: plug and unplug mock devices, for demos and tests.
struct MockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mock",
        abstract: "Attach and detach mock devices (for demos and tests).",
        subcommands: [Attach.self, Detach.self])

    /// The full id of a mock device: `till-1` means `mock:till-1`, since only mocks take these commands.
    static func deviceID(_ text: String) -> String {
        text.contains(":") ? text : "mock:" + text
    }
}

extension MockCommand {
    /// `scanbridge mock attach KIND [--id ID] [--name NAME]` → `mock.attach`.
    struct Attach: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Attach a mock device; attaching the id of a gone device plugs it back in.")

        @OptionGroup var connection: ConnectionOptions

        @Argument(help: "What the device reads.")
        var kind: DeviceKind

        @Option(help: "The device id after `mock:` (default: <kind>-<n>).")
        var id: String?

        @Option(help: "The device's display name.")
        var name: String?

        @Flag(help: "Print the daemon's answer as JSON.")
        var json = false

        func run() async throws {
            var params: [String: JSONValue] = ["kind": .string(kind.rawValue)]
            if let id {
                params["id"] = .string(id.hasPrefix("mock:") ? String(id.dropFirst(5)) : id)
            }
            if let name { params["name"] = .string(name) }
            try await connection.withClient { client in
                if json {
                    await Console.out(JSONText.pretty(try await client.call("mock.attach", .object(params))))
                    return
                }
                let device = try await client.call("mock.attach", .object(params), as: Attached.self).device
                await Console.out(EventFormatter().device(device, change: "attached") + ": \(device.name)")
            }
        }

        private struct Attached: Decodable { var device: Device }
    }

    /// `scanbridge mock detach ID` → `mock.detach`.
    struct Detach: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Detach (unplug) a mock device; it stays listed as gone.")

        @OptionGroup var connection: ConnectionOptions

        @Argument(help: "The device id (mock:till-1, or just till-1).")
        var id: String

        @Flag(help: "Print the daemon's answer as JSON.")
        var json = false

        func run() async throws {
            let device = MockCommand.deviceID(id)
            try await connection.callAndPrint("mock.detach", ["id": .string(device)], json: json) { _ in
                "- device \(device) detached"
            }
        }
    }
}
