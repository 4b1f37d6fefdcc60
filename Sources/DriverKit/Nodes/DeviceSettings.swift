/// The `KEY=VALUE` settings of a `--device DRIVER:PATH[,KEY=VALUE…]`, read the same way for
/// every driver: a name the driver does not know, or a value it cannot take, is one sentence
/// an operator can act on.
package struct DeviceSettings: Sendable {
    private let values: [String: String]

    /// `values`, refused when one is not named in `known`; `device` says what is being set
    /// up, in the sentence (`an evdev device`).
    package init(_ values: [String: String], known: [String], device: String) throws(DeviceSettingError) {
        if let unknown = values.keys.sorted().first(where: { !known.contains($0) }) {
            throw DeviceSettingError("unknown setting '\(unknown)' for \(device) (known: \(known.joined(separator: ", ")))")
        }
        self.values = values
    }

    package subscript(name: String) -> String? { values[name] }

    /// A whole number within `range`, `fallback` when not given.
    package func integer(_ name: String, default fallback: Int, in range: ClosedRange<Int>, unit: String)
        throws(DeviceSettingError) -> Int
    {
        guard let value = values[name] else { return fallback }
        guard let number = Int(value), range.contains(number) else {
            throw DeviceSettingError("\(name) takes \(unit) from \(range.lowerBound) to \(range.upperBound), not '\(value)'")
        }
        return number
    }

    /// A duration in whole milliseconds within `range`, `fallback` when not given.
    package func milliseconds(_ name: String, default fallback: Duration, in range: ClosedRange<Int> = 1...10_000)
        throws(DeviceSettingError) -> Duration
    {
        guard values[name] != nil else { return fallback }
        return .milliseconds(try integer(name, default: 0, in: range, unit: "milliseconds"))
    }

    /// A switch: `on`, `yes`, `true` or `1`; `off`, `no`, `false` or `0`. `words` names the two
    /// in the sentence when the value is neither (`on or off`).
    package func flag(_ name: String, default fallback: Bool, words: String) throws(DeviceSettingError) -> Bool {
        switch values[name] {
        case nil: return fallback
        case "on", "yes", "true", "1": return true
        case "off", "no", "false", "0": return false
        case let other?: throw DeviceSettingError("\(name) takes \(words), not '\(other)'")
        }
    }
}

/// A setting a driver cannot take: the sentence, which each driver wraps in its own error.
package struct DeviceSettingError: Error, Equatable, CustomStringConvertible {
    package let description: String

    package init(_ description: String) {
        self.description = description
    }
}
