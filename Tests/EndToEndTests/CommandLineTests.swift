import Foundation
import ScanBridgeClient
import ScanBridgeTesting
import Testing

/// The `scanbridge` CLI against the real daemon, run as a person would.
@Suite("Command line end to end", .heavy, .timeLimit(.minutes(5)))
struct CommandLineTests {
    @Test func devicesInjectCallAndMock() async throws {
        let daemon = try await startDaemon(["--mock", "barcode:till-1"])
        let socket = ["--socket", daemon.socketPath]

        let devices = try await run("scanbridge", ["devices"] + socket)
        #expect(devices.status == 0)
        #expect(devices.out.contains("mock:till-1") && devices.out.contains("ready"))

        let inject = try await run("scanbridge", ["inject", "till-1", "5901234123457", "--json"] + socket)
        #expect(inject.status == 0, "\(inject.err)")
        #expect(inject.out.contains("\"symbology\": \"ean-13\""), "\(inject.out)")

        let attach = try await run("scanbridge", ["mock", "attach", "nfc", "--id", "door"] + socket)
        #expect(attach.status == 0, "\(attach.err)")
        let tap = try await run("scanbridge", ["inject", "door", "--uid", "04:a1:b2:c3:d4:e5:f6"] + socket)
        #expect(tap.status == 0 && tap.out.contains("04:A1:B2:C3:D4:E5:F6"), "\(tap.out) \(tap.err)")

        let call = try await run("scanbridge", ["call", "events.recent", #"{"limit": 1}"#] + socket)
        #expect(call.status == 0 && call.out.contains("04A1B2C3D4E5F6"))

        let bad = try await run("scanbridge", ["call", "scan.inject", #"{"device": "mock:till-1"}"#] + socket)
        #expect(bad.status == 1)
        #expect(bad.err.contains("error -32602"))
    }

    @Test func noDaemonIsOneClearSentence() async throws {
        let harness = try DaemonHarness()
        let result = try await run("scanbridge", ["devices", "--socket", harness.socketPath])
        #expect(result.status == 2, "the daemon cannot be reached")
        #expect(result.err.contains(harness.socketPath))
        #expect(result.err.contains("scanbridged"), "it says how to start a daemon: \(result.err)")
        #expect(!result.err.contains("Fatal error"))
    }

    @Test func watchPrintsScansAsTheyHappen() async throws {
        let daemon = try await startDaemon(["--mock", "barcode:till-1"])
        let client = try await daemon.connect()
        _ = try await client.inject(device: "mock:till-1", text: "4006381333931")
        let watch = try Spawned(
            "scanbridge", ["watch", "--since", "0", "--json", "--socket", daemon.socketPath])
        let line = try await watch.firstLine(timeout: .seconds(20))
        #expect(line.contains("4006381333931"))
        watch.interrupt()
        await client.close()
    }

    /// A scan's text cannot drive the terminal: its C0 and C1 controls (ESC, CSI, NEL) are
    /// shown, in the readable line and in the JSON alike, never written as they are.
    @Test func controlCharactersInAScanAreShownNotSent() async throws {
        let daemon = try await startDaemon(["--mock", "barcode:till-1"])
        let socket = ["--socket", daemon.socketPath]
        let text = "A\u{1B}[2JB\u{9B}31mC\u{85}D"
        func controls(_ output: String) -> [Unicode.Scalar] {
            output.unicodeScalars.filter { $0 != "\n" && ($0.value < 0x20 || (0x7F...0x9F).contains($0.value)) }
        }

        let line = try await run("scanbridge", ["inject", "till-1", text] + socket)
        #expect(line.status == 0, "\(line.err)")
        #expect(line.out.contains("A<0x1B>[2JB<0x9B>31mC<0x85>D"), "\(line.out)")
        #expect(controls(line.out).isEmpty, "\(line.out.debugDescription)")

        let json = try await run("scanbridge", ["inject", "till-1", text, "--json"] + socket)
        #expect(json.status == 0, "\(json.err)")
        #expect(json.out.lowercased().contains(#"a\u001b[2jb\u009b31mc\u0085d"#), "\(json.out)")
        #expect(controls(json.out).isEmpty, "\(json.out.debugDescription)")
    }

    /// An item priced at the counter (the demo's cheddar, 0.00 in the catalog) reads as the
    /// price its barcode carries, which is the figure the cashier charges.
    @Test func aPriceEmbeddedItemReadsAsItsPrice() async throws {
        let daemon = try await startDaemon(["--mock", "barcode:till-1"])
        let socket = ["--socket", daemon.socketPath]
        let catalog = repositoryRoot.appendingPathComponent("demo/catalog.csv").path
        let imported = try await run("scanbridge", ["products", "import", catalog] + socket)
        #expect(imported.status == 0, "\(imported.err)")

        let line = try await run("scanbridge", ["inject", "till-1", "2011122912346"] + socket)
        #expect(line.status == 0, "\(line.err)")
        #expect(line.out.contains("product-lookup found: Cheddar 12.34 GBP (price from the barcode)"), "\(line.out)")
        #expect(!line.out.contains("0.00"), "\(line.out)")

        let lookup = try await run("scanbridge", ["lookup", "2011122912346"] + socket)
        #expect(lookup.status == 0, "\(lookup.err)")
        #expect(lookup.out.hasPrefix("Cheddar  12.34 GBP (price from the barcode)"), "\(lookup.out)")
    }
}
