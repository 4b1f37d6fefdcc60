import Foundation
import ScanBridgeClient
import ScanBridgeCore
import ScanBridgeTesting
import Testing

/// The HID POS driver in the real daemon, fed 64-byte scanned-data reports through a FIFO
/// named with `--device hidpos:PATH` (a FIFO has no report descriptor: the driver reads the
/// common layout, the one real descriptors are tested against in HIDReportDescriptorTests).
@Suite("HID POS scanners end to end")
struct HIDPOSEndToEndTests {
    /// The reports of one label: length, AIM identifier, up to 56 data bytes, "more" in the last byte.
    static func reports(_ label: String, aim: String) -> [UInt8] {
        let bytes = Array(label.utf8)
        let parts = stride(from: 0, to: bytes.count, by: 56).map { Array(bytes[$0..<min($0 + 56, bytes.count)]) }
        return parts.enumerated().flatMap { index, part in
            var report = [UInt8](repeating: 0, count: 64)
            report[0] = 2
            report[1] = UInt8(part.count)
            report.replaceSubrange(2..<5, with: Array(aim.utf8))
            report.replaceSubrange(5..<(5 + part.count), with: part)
            report[63] = index < parts.count - 1 ? 1 : 0
            return report
        }
    }

    @Test func reportsBecomeResolvedEventsWithTheirSymbology() async throws {
        let fifo = try DeviceFIFO(name: "hidraw")
        let daemon = try await startDaemon(["--drivers", "hidpos", "--device", "hidpos:\(fifo.path)"])
        let client = try await daemon.connect()
        _ = try await within(20, "the hidpos device ready") {
            while try await client.devices().first?.state != .ready { try await Task.sleep(for: .milliseconds(20)) }
        }
        _ = try await client.call("events.subscribe", ["kinds": ["barcode"]])
        var notifications = client.notifications.makeAsyncIterator()

        let long = "0109506000134352" + "10ABC1\u{1D}17251231" + "21" + String(repeating: "S", count: 20) + "\u{1D}91XYZ0123456789"
        var stream = Self.reports("4006381333931", aim: "]E0")
        stream += [0x05] + [UInt8](repeating: 0xEE, count: 63)  // another report ID: skipped
        stream += Self.reports(long, aim: "]C1")
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
