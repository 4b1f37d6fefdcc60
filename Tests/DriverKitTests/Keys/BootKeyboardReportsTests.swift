import Testing

@testable import DriverKit

/// A boot keyboard's reports, as the `usb` driver reads them over libusb, decoded by the same
/// `KeyStream` as an evdev node's events.
struct BootKeyboardReportsTests {
    /// The reports a keyboard sends to type `keys` (usage, shifted): each key pressed, then
    /// every key released.
    static func reports(_ keys: [(UInt8, Bool)]) -> [[UInt8]] {
        keys.flatMap { usage, shifted in
            [[shifted ? 0x02 : 0, 0, usage, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0]]
        }
    }

    /// The scans `reports` decode to in `layout`, each report a key's time after the last.
    static func decode(_ reports: [[UInt8]], layout: String) throws -> [String] {
        let stream = try KeyStream(layout: layout)
        var converter = BootKeyboardReports()
        var texts: [String] = []
        for (index, report) in reports.enumerated() {
            let records = converter.events(report, microseconds: Int64(index) * 2_000)
            for decoded in stream.feed(records) {
                if case .scan(let text, _) = decoded.output { texts.append(text) }
            }
        }
        return texts
    }

    @Test func reportsTypeTheTextOfTheLayout() throws {
        // Q, W, Y, Shift+A, 4, 0 and Enter by HID usage: the keys' places, not their letters.
        let keys: [(UInt8, Bool)] = [
            (0x14, false), (0x1A, false), (0x1C, false), (0x04, true), (0x21, false), (0x27, false), (0x28, false),
        ]
        #expect(try Self.decode(Self.reports(keys), layout: "us") == ["qwyA40"])
        #expect(try Self.decode(Self.reports(keys), layout: "de") == ["qwzA40"], "the German layout swaps Y and Z")
        #expect(try Self.decode(Self.reports(keys), layout: "fr") == ["azyQ\u{27}à"], "AZERTY: digits need Shift")
    }

    @Test func onlyChangesMakeEventsAndRolloverReportsNone() {
        var converter = BootKeyboardReports()
        let press = converter.events([0, 0, 0x04, 0, 0, 0, 0, 0], microseconds: 0)
        #expect(press.count == 2 * InputEvent.size, "a press and a SYN_REPORT")
        #expect(converter.events([0, 0, 0x04, 0, 0, 0, 0, 0], microseconds: 10).isEmpty, "the same report again: nothing")
        #expect(converter.events([0, 0, 1, 1, 1, 1, 1, 1], microseconds: 20).isEmpty, "too many keys down: no state")
        #expect(converter.events([0, 0, 0x05, 1, 0, 0, 0, 0], microseconds: 25).isEmpty, "0x01 in any slot")
        #expect(converter.events([0, 0, 0x04, 0x04, 0, 0, 0, 0], microseconds: 26).isEmpty, "a key in two slots is one key")
        #expect(converter.events([0, 0], microseconds: 30).isEmpty, "a short report")
        let shifted = converter.events([0x02, 0, 0x04, 0x05, 0, 0, 0, 0], microseconds: 40)
        let events = stride(from: 0, to: shifted.count, by: InputEvent.size).map { offset in
            shifted[offset..<offset + InputEvent.size].withUnsafeBytes { InputEvent($0) }
        }
        #expect(events.map(\.code) == [42, 48, 0], "left Shift, then B, then SYN_REPORT")
        #expect(events.map(\.value) == [1, 1, 0])
    }
}
