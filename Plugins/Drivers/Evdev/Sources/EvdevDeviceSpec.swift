/// A keyboard-wedge device to read, as `--device evdev:PATH[,KEY=VALUE…]` names it.
///
/// Settings: `layout` (the XKB layout the scanner emulates, default `us`), `grab` (`on` by
/// default: the desktop sees none of the scanner's keys), `max_gap` and `idle` in
/// milliseconds (the burst timing, KeystrokeAssembler.Settings).
public struct EvdevDeviceSpec: Sendable, Equatable {
    public var path: String
    public var layout: String
    public var grab: Bool
    var timing: KeystrokeAssembler.Settings

    public static let settingNames = ["layout", "grab", "max_gap", "idle"]

    public init(path: String, settings: [String: String] = [:]) throws(EvdevError) {
        self.path = path
        if let unknown = settings.keys.sorted().first(where: { !Self.settingNames.contains($0) }) {
            throw .badSetting("unknown setting '\(unknown)' for an evdev device (known: \(Self.settingNames.joined(separator: ", ")))")
        }
        layout = settings["layout"] ?? "us"
        _ = try XKBKeymap.named(layout)
        switch settings["grab"] ?? "on" {
        case "on", "true", "yes", "1": grab = true
        case "off", "false", "no", "0": grab = false
        case let other: throw .badSetting("grab takes on or off, not '\(other)'")
        }
        timing = KeystrokeAssembler.Settings()
        if let maxGap = settings["max_gap"] { timing.maxGap = try Self.milliseconds(maxGap, for: "max_gap") }
        if let idle = settings["idle"] { timing.idle = try Self.milliseconds(idle, for: "idle") }
        guard timing.maxGap < timing.idle else {
            throw .badSetting("max_gap (\(timing.maxGap)) must be shorter than idle (\(timing.idle))")
        }
    }

    private static func milliseconds(_ text: String, for name: String) throws(EvdevError) -> Duration {
        guard let value = Int(text), (1...10_000).contains(value) else {
            throw .badSetting("\(name) takes milliseconds from 1 to 10000, not '\(text)'")
        }
        return .milliseconds(value)
    }
}
