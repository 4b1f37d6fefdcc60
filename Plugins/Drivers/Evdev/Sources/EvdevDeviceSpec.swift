import DriverKit

/// A keyboard-wedge device to read, as `--device evdev:PATH[,KEY=VALUE…]` names it.
///
/// Settings: `layout` (the XKB layout the scanner emulates, default `us`), `grab` (`on` by
/// default: the desktop sees none of the scanner's keys), `max_gap` and `idle` in
/// milliseconds (the burst timing, KeystrokeAssembler.Settings).
package struct EvdevDeviceSpec: Sendable, Equatable {
    package var path: String
    package var layout: String
    package var grab: Bool
    var timing: KeystrokeAssembler.Settings

    package static let settingNames = ["layout", "grab", "max_gap", "idle"]

    package init(path: String, settings: [String: String] = [:]) throws(EvdevError) {
        self.path = path
        let given: DeviceSettings
        do throws(DeviceSettingError) {
            given = try DeviceSettings(settings, known: Self.settingNames, device: "an evdev device")
            grab = try given.flag("grab", default: true, words: "on or off")
            let defaults = KeystrokeAssembler.Settings()
            timing = defaults
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
