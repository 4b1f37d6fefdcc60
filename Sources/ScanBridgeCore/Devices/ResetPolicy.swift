/// When a device that keeps failing is reset by itself (`usb.auto_reset_after_errors`): once
/// it has gone into `error` `errors` times within `window`, and at most once a `window`, so
/// that a device a reset does not cure is not reset over and over. A pure state machine:
/// times are passed in. Bounded: at most `errors` times per device, and devices with nothing
/// recent are forgotten once more than `maxDevices` are counted.
package struct ResetPolicy: Sendable {
    package let errors: Int
    package let window: Duration
    private let maxDevices: Int
    private var failures: [String: [ContinuousClock.Instant]] = [:]
    private var lastReset: [String: ContinuousClock.Instant] = [:]

    package init(errors: Int, window: Duration = .seconds(600), maxDevices: Int = 256) {
        self.errors = errors
        self.window = window
        self.maxDevices = maxDevices
    }

    /// Counts a failure of device `id` at `now`; whether to reset it now.
    package mutating func failed(_ id: String, at now: ContinuousClock.Instant) -> Bool {
        bound(now)
        var recent = (failures[id] ?? []).filter { now - $0 < window }
        recent.append(now)
        failures[id] = Array(recent.suffix(errors))
        guard recent.count >= errors else { return false }
        if let last = lastReset[id], now - last < window { return false }
        lastReset[id] = now
        failures[id] = nil
        return true
    }

    /// Keeps each table within `maxDevices`: what is older than the window goes first, then,
    /// were that not enough (devices coming under new ids all the time), the older half.
    private mutating func bound(_ now: ContinuousClock.Instant) {
        if failures.count > maxDevices {
            failures = failures.filter { now - ($0.value.last ?? now) < window }
            if failures.count > maxDevices {
                let newest = failures.sorted { ($0.value.last ?? now) > ($1.value.last ?? now) }.prefix(maxDevices / 2)
                failures = Dictionary(uniqueKeysWithValues: newest.map { ($0.key, $0.value) })
            }
        }
        if lastReset.count > maxDevices {
            lastReset = lastReset.filter { now - $0.value < window }
            if lastReset.count > maxDevices {
                let newest = lastReset.sorted { $0.value > $1.value }.prefix(maxDevices / 2)
                lastReset = Dictionary(uniqueKeysWithValues: newest.map { ($0.key, $0.value) })
            }
        }
    }
}
