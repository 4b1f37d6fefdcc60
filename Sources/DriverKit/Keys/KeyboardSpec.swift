/// How the keys of a scanner that types are decoded: a keyboard-wedge scanner's evdev node, or
/// a HID boot keyboard read through libusb. Settings: `layout` (the XKB layout the scanner
/// emulates, default `us`), `max_gap` and `idle` in milliseconds (the burst timing,
/// `KeystrokeAssembler.Settings`).
package struct KeyboardSpec: Sendable, Equatable {
    package var layout: String
    package var timing: KeystrokeAssembler.Settings

    package static let settingNames = ["layout", "max_gap", "idle"]

    /// The defaults: the US layout and the assembler's timing.
    package init() {
        layout = "us"
        timing = KeystrokeAssembler.Settings()
    }

    /// The keyboard settings among `given` (a device's, checked for unknown names by its driver).
    package init(_ given: DeviceSettings) throws(KeyboardError) {
        let defaults = KeystrokeAssembler.Settings()
        timing = defaults
        do throws(DeviceSettingError) {
            timing.maxGap = try given.milliseconds("max_gap", default: defaults.maxGap)
            timing.idle = try given.milliseconds("idle", default: defaults.idle)
        } catch {
            throw .badSetting(error.description)
        }
        layout = given["layout"] ?? "us"
        _ = try XKBKeymap.named(layout)
        guard timing.maxGap < timing.idle else {
            throw .badSetting("max_gap (\(timing.maxGap)) must be shorter than idle (\(timing.idle))")
        }
    }
}
