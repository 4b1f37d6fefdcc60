import DriverKit
import Testing

struct ByteFramerTests {
    static func settings(_ suffix: ByteFramer.Suffix, prefix: String = "") -> ByteFramer.Settings {
        var settings = ByteFramer.Settings()
        settings.suffix = suffix
        settings.prefix = Array(prefix.utf8)
        return settings
    }

    static func reads(_ text: String, suffix: ByteFramer.Suffix = .any, prefix: String = "") -> [String] {
        var framer = ByteFramer(settings: settings(suffix, prefix: prefix))
        return framer.feed(Array(text.utf8), at: .zero).compactMap {
            if case .read(let bytes) = $0 { String(decoding: bytes, as: UTF8.self) } else { nil }
        }
    }

    @Test func anySuffixTakesCRLFAndCRLF() {
        #expect(
            Self.reads("4006381333931\r5901234123457\n036000291452\r\nA\n\n") == [
                "4006381333931", "5901234123457", "036000291452", "A",
            ])
    }

    @Test func aChosenSuffixLeavesTheOthersInTheData() {
        #expect(Self.reads("A\rB\nC\r\n", suffix: .crlf) == ["A\rB\nC"])
        #expect(Self.reads("A\rB\n", suffix: .lf) == ["A\rB"])
        #expect(Self.reads("A\nB\r", suffix: .cr) == ["A\nB"])
    }

    @Test func readsSplitAcrossChunksAndAPrefix() {
        var framer = ByteFramer(settings: Self.settings(.crlf, prefix: "]E0"))
        #expect(framer.feed(Array("]E040063".utf8), at: .zero).isEmpty)
        #expect(framer.feed(Array("81333931\r".utf8), at: .milliseconds(2)).isEmpty)
        #expect(framer.feed(Array("\n".utf8), at: .milliseconds(3)) == [.read(Array("4006381333931".utf8))])
    }

    @Test func noSuffixEndsAReadAfterAPause() {
        var framer = ByteFramer(settings: Self.settings(.none))
        #expect(framer.feed(Array("ABC".utf8), at: .zero).isEmpty)
        #expect(framer.deadline == .milliseconds(100))
        #expect(framer.flush() == .read(Array("ABC".utf8)))
        #expect(framer.deadline == nil)
        // Bytes after a longer pause than idle start a new read, even before the flush ran.
        #expect(framer.feed(Array("12".utf8), at: .seconds(1)).isEmpty)
        #expect(framer.feed(Array("34".utf8), at: .seconds(2)) == [.read(Array("12".utf8))])
    }

    @Test func anOverlongReadIsDroppedAndTheNextOneKept() {
        var framer = ByteFramer(settings: Self.settings(.any))
        let outputs = framer.feed(Array(String(repeating: "9", count: 10_001).utf8) + Array("\r\nOK\r".utf8), at: .zero)
        #expect(outputs == [.tooLong(length: 10_001), .read(Array("OK".utf8))])
    }

    @Test func garbageBytesStayBytes() {
        var framer = ByteFramer(settings: Self.settings(.lf))
        #expect(framer.feed([0xFF, 0x00, 0xC3, 0x0A], at: .zero) == [.read([0xFF, 0x00, 0xC3])])
    }

    @Test func settingsAreReadTheSameForEveryDriver() throws {
        let given = try DeviceSettings(
            ["suffix": "none", "idle": "40", "prefix": "]E0"], known: ByteFramer.Settings.names, device: "a test")
        let settings = try ByteFramer.Settings(given)
        #expect(settings.suffix == .none && settings.idle == .milliseconds(40) && settings.prefix == Array("]E0".utf8))
        let bad = try DeviceSettings(["suffix": "semicolon"], known: ByteFramer.Settings.names, device: "a test")
        #expect(throws: DeviceSettingError("suffix takes any, cr, lf, crlf, none, not 'semicolon'")) {
            try ByteFramer.Settings(bad)
        }
    }
}
