import DriverKit
import Testing

/// The settings of `--device DRIVER:PATH,KEY=VALUE…`, read the same way by every driver.
struct DeviceSettingsTests {
    @Test func anUnknownNameIsRefusedWithTheKnownOnes() {
        #expect(throws: DeviceSettingError("unknown setting 'speed' for a serial device (known: idle, baud)")) {
            try DeviceSettings(["idle": "40", "speed": "9"], known: ["idle", "baud"], device: "a serial device")
        }
    }

    @Test(
        arguments: [
            (nil, 100), ("1", 1), ("10000", 10_000),
        ] as [(String?, Int)])
    func millisecondsWithinTheirRange(_ value: String?, _ expected: Int) throws {
        let settings = try DeviceSettings(value.map { ["idle": $0] } ?? [:], known: ["idle"], device: "a device")
        #expect(try settings.milliseconds("idle", default: .milliseconds(100)) == .milliseconds(expected))
    }

    @Test(arguments: ["0", "10001", "-5", "1.5", "soon", ""])
    func millisecondsOutOfRangeAreRefused(_ value: String) throws {
        let settings = try DeviceSettings(["idle": value], known: ["idle"], device: "a device")
        #expect(throws: DeviceSettingError("idle takes milliseconds from 1 to 10000, not '\(value)'")) {
            try settings.milliseconds("idle", default: .milliseconds(100))
        }
    }

    @Test func integersNameTheirUnitAndRange() throws {
        let settings = try DeviceSettings(["width": "8"], known: ["width", "height"], device: "a camera")
        #expect(throws: DeviceSettingError("width takes pixels from 16 to 4096, not '8'")) {
            try settings.integer("width", default: 1280, in: 16...4096, unit: "pixels")
        }
        #expect(try settings.integer("height", default: 720, in: 16...4096, unit: "pixels") == 720)
    }

    @Test(arguments: [
        ("on", true), ("yes", true), ("true", true), ("1", true),
        ("off", false), ("no", false), ("false", false), ("0", false),
    ])
    func flagsTakeEveryUsualWord(_ value: String, _ expected: Bool) throws {
        let settings = try DeviceSettings(["grab": value], known: ["grab"], device: "a device")
        #expect(try settings.flag("grab", default: !expected, words: "on or off") == expected)
    }

    @Test func anUnclearFlagIsRefusedInItsOwnWords() throws {
        let settings = try DeviceSettings(["grab": "maybe"], known: ["grab", "loop"], device: "a device")
        #expect(throws: DeviceSettingError("grab takes on or off, not 'maybe'")) {
            try settings.flag("grab", default: true, words: "on or off")
        }
        #expect(try settings.flag("loop", default: false, words: "yes or no") == false)
    }
}
