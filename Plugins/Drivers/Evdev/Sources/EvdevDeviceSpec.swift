package import DriverKit

/// A keyboard-wedge device to read, as `--device evdev:PATH[,KEY=VALUE…]` names it.
///
/// Settings: `grab` (`on` by default: the desktop sees none of the scanner's keys), and the
/// keyboard's: `layout`, `max_gap` and `idle` (`KeyboardSpec`).
package struct EvdevDeviceSpec: Sendable, Equatable {
    package var path: String
    package var grab: Bool
    package var keyboard: KeyboardSpec

    package static let settingNames = ["layout", "grab", "max_gap", "idle"]

    package init(path: String, settings: [String: String] = [:]) throws(KeyboardError) {
        self.path = path
        let given: DeviceSettings
        do throws(DeviceSettingError) {
            given = try DeviceSettings(settings, known: Self.settingNames, device: "an evdev device")
            grab = try given.flag("grab", default: true, words: "on or off")
        } catch {
            throw .badSetting(error.description)
        }
        keyboard = try KeyboardSpec(given)
    }
}
