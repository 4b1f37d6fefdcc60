import Foundation
import ScanBridgeClient
import ScanBridgeModel
import ScanBridgeTesting
import Testing

/// The HID POS driver in the real daemon, fed 64-byte scanned-data reports through a FIFO
/// named with `--device hidpos:PATH` (a FIFO has no report descriptor: the driver reads the
/// common layout, the one real descriptors are tested against in HIDReportDescriptorTests).
@Suite("HID POS scanners end to end", .heavy, .timeLimit(.minutes(5)))
struct HIDPOSEndToEndTests {
    @Test func reportsBecomeResolvedEventsWithTheirSymbology() async throws {
        let fifo = try DeviceFIFO(name: "hidraw")
        let daemon = try await startDaemon(["--drivers", "hidpos", "--device", "hidpos:\(fifo.path)"])
        let client = try await daemon.connect()
        try await waitUntil("the hidpos device ready", timeout: .seconds(20)) {
            try await client.devices().first?.state == .ready
        }
        _ = try await client.call("events.subscribe", ["kinds": ["barcode"]])
        var notifications = client.notifications.makeAsyncIterator()

        let long =
            "0109506000134352" + "10ABC1\u{1D}17251231" + "21" + String(repeating: "S", count: 20) + "\u{1D}91XYZ0123456789"
        var stream = HIDPOSReports.reports("4006381333931", aim: "]E0")
        stream += [0x05] + [UInt8](repeating: 0xEE, count: 63)  // another report ID: skipped
        stream += HIDPOSReports.reports(long, aim: "]C1")
        try await fifo.write(stream)

        let ean = try #require(try await next("scan", from: &notifications).scanEvent())
        #expect(ean.driver == "hidpos" && ean.text == "4006381333931" && ean.symbology == "ean-13" && ean.aim == "]E0")
        #expect(ean.resolution.handler == "product-lookup")
        let gs1 = try #require(try await next("scan", from: &notifications).scanEvent())
        #expect(gs1.text == long && gs1.symbology == "gs1-128" && gs1.gs1?["17"] == "251231")
        await client.close()
        withExtendedLifetime(daemon) {}
    }

    @Test func settingsAreRefused() async throws {
        let harness = try DaemonHarness(arguments: ["--drivers", "hidpos", "--device", "hidpos:/dev/hidraw0,layout=de"])
        await #expect(throws: (any Error).self) { try await harness.start() }
        #expect(harness.log.contains("a hidpos device takes no settings"))
    }
}
