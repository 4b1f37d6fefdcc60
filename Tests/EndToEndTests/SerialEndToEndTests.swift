import Foundation
import Glibc
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeTesting
import Testing

/// The serial driver in the real daemon, reading the far end of a pty as it would a
/// `/dev/ttyACM*` scanner (`--device serial:PATH`): the test writes what the scanner sends.
///
/// One test at a time: the kernel gives a closed pty's number to the next one opened, and a
/// daemon reopens a named device that went away (as it should a replugged `ttyACM0`), so a
/// daemon whose pty was closed would read the next test's.
@Suite("Serial scanners end to end", .serialized, .heavy, .timeLimit(.minutes(5)))
struct SerialEndToEndTests {
    /// A daemon reading `pty` with `settings`, its device ready (in raw mode), subscribed to
    /// barcodes. Keep the harness: the daemon is killed when it goes.
    static func start(_ pty: PseudoTerminal, settings: String = "") async throws -> (DaemonHarness, ScanBridgeClient) {
        let daemon = try await startDaemon(["--drivers", "serial", "--device", "serial:\(pty.path)\(settings)"])
        let client = try await daemon.connect()
        try await waitUntil("the serial device ready", timeout: .seconds(20)) {
            try await client.devices().first?.state == .ready
        }
        _ = try await client.call("events.subscribe", ["kinds": ["barcode"]])
        return (daemon, client)
    }

    @Test func eachSuffixedReadIsOneResolvedEvent() async throws {
        let pty = try PseudoTerminal()
        defer { pty.close() }
        // A long idle time: the read split in two writes below must not end at the pause
        // between them, however slow this machine is now.
        let (daemon, client) = try await Self.start(pty, settings: ",idle=5000")
        let device = try #require(try await client.devices().first)
        #expect(device.driver == "serial" && device.kind == .barcode && device.path == pty.path)
        #expect(device.id == "serial:" + pty.path.dropFirst().replacingOccurrences(of: "/", with: "_"))

        #expect(pty.send("4006381333931\r\n]C1010950600013435210ABC1\u{1D}17251231\r") > 0)
        pty.send("5901234")
        try await Task.sleep(for: .milliseconds(20))  // pacing the scanner: a pause mid-read
        pty.send("123457\n")
        var notifications = client.notifications.makeAsyncIterator()
        var scans: [ScanEvent] = []
        for _ in 0..<3 { scans.append(try #require(try await next("scan", from: &notifications).scanEvent())) }
        #expect(scans.map(\.text) == ["4006381333931", "010950600013435210ABC1\u{1D}17251231", "5901234123457"])
        #expect(scans.map(\.symbology) == ["ean-13", "gs1-128", "ean-13"])
        #expect(scans[1].gs1 == ["01": "09506000134352", "10": "ABC1", "17": "251231"])
        #expect(scans.allSatisfy { $0.device == device.id && $0.resolution.handler == "product-lookup" })
        await client.close()
        withExtendedLifetime(daemon) {}
    }

    @Test func noSuffixAPrefixAndGarbage() async throws {
        let pty = try PseudoTerminal()
        defer { pty.close() }
        let (daemon, client) = try await Self.start(pty, settings: ",suffix=none,idle=50,prefix=STX")
        var notifications = client.notifications.makeAsyncIterator()
        pty.send("STX4006381333931")
        let first = try #require(try await next("scan", from: &notifications).scanEvent())
        #expect(first.text == "4006381333931" && first.symbology == "ean-13")
        pty.send([0xFF, 0xFE, 0x41])
        let garbage = try #require(try await next("scan", from: &notifications).scanEvent())
        #expect(garbage.raw == "//5B", "bytes that are not UTF-8 travel as raw base64")
        await client.close()
        withExtendedLifetime(daemon) {}
    }

    @Test func anUnpluggedScannerIsGoneAndTheDaemonCarriesOn() async throws {
        let pty = try PseudoTerminal()
        let (daemon, client) = try await Self.start(pty)
        pty.send(String(repeating: "8", count: 10_001) + "\r")  // over the cap: dropped, logged
        pty.send("4006381333931\r")
        var notifications = client.notifications.makeAsyncIterator()
        #expect(try await next("scan", from: &notifications).scanEvent()?.text == "4006381333931")
        pty.close()
        try await waitUntil("the device gone", timeout: .seconds(20)) { try await client.devices().first?.state != .ready }
        #expect(try await client.devices().first?.state != .ready)
        #expect(daemon.log.contains("dropped 10001 bytes"))
        await client.close()
        try await daemon.stop()  // before the next test's pty takes this one's number
    }
}
