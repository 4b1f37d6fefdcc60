extension DaemonConfig.Scanners {
    /// The settings discovery reads keyboard-wedge scanners with, as `--device evdev:…`
    /// settings: `layout`, `max_gap`, `idle` and `grab` from this section.
    package var wedgeSettings: [String: String] {
        var settings = ["layout": layout ?? "us"]
        settings["max_gap"] = maxGap.map(String.init)
        settings["idle"] = idle.map(String.init)
        settings["grab"] = grab.map(Self.switchWord)
        return settings
    }

    /// The settings of a node named with `--device evdev:…`: its own, and this section's
    /// `grab` when it says nothing of grabbing. A `grab=` on the node wins.
    package func namedWedgeSettings(_ given: [String: String]) -> [String: String] {
        var settings = given
        if settings["grab"] == nil, let grab { settings["grab"] = Self.switchWord(grab) }
        return settings
    }

    private static func switchWord(_ on: Bool) -> String { on ? "on" : "off" }
}
