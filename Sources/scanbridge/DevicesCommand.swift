import ArgumentParser
import ScanBridgeClient

/// `scanbridge devices`: the devices the daemon knows.
struct DevicesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
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
