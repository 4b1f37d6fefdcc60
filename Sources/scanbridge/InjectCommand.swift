import ArgumentParser
import ScanBridgeClient
import ScanBridgeModel

/// `scanbridge inject DEVICE TEXT` / `scanbridge inject DEVICE --uid HEX` → `scan.inject`.
struct InjectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inject",
        abstract: "Make a mock device read a barcode, a QR code or an NFC card, and show the resolved event.",
        discussion: """
            Examples:
              scanbridge inject till-1 5901234123457
              scanbridge inject mock:qr-1 'https://example.com/orders/1001' --symbology qr
              scanbridge inject nfc-1 --uid 04A1B2C3D4E5F6
            """)

    @OptionGroup var connection: ConnectionOptions

    @Argument(help: "The mock device (mock:till-1, or just till-1).")
    var device: String

    @Argument(help: "The barcode or QR content to read (barcode and qr mocks).")
    var text: String?

    @Option(help: "The symbology (ean-13, code-128, qr…); the daemon infers it when left out.")
    var symbology: String?

    @Option(help: "The card UID to tap, in hex: 04A1B2C3D4E5F6 or 04:A1:B2:… (nfc mocks).")
    var uid: String?

    @Flag(help: "Print the resolved event as JSON.")
    var json = false

    func validate() throws {
        guard text != nil || uid != nil else {
            throw ValidationError("give the TEXT to read (barcode or qr mock) or --uid HEX (nfc mock)")
        }
    }

    func run() async throws {
        let device = MockCommand.deviceID(self.device)
        try await connection.withClient { client in
            if json {
                var params: [String: JSONValue] = ["device": .string(device)]
                if let text { params["text"] = .string(text) }
                if let uid { params["uid"] = .string(uid) }
                if let symbology { params["symbology"] = .string(symbology) }
                let result = try await client.call("scan.inject", .object(params))
                await Console.out(JSONText.pretty(result["event"] ?? result))
                return
            }
            let event = try await client.inject(device: device, text: text, uid: uid, symbology: symbology)
            await Console.out(EventFormatter().event(event))
        }
    }
}
