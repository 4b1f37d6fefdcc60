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
        if failures.count + lastReset.count > maxDevices { forgetOld(now) }
        var recent = (failures[id] ?? []).filter { now - $0 < window }
        recent.append(now)
        failures[id] = Array(recent.suffix(errors))
        guard recent.count >= errors else { return false }
        if let last = lastReset[id], now - last < window { return false }
        lastReset[id] = now
        failures[id] = nil
        return true
    }

    private mutating func forgetOld(_ now: ContinuousClock.Instant) {
        failures = failures.filter { now - ($0.value.last ?? now) < window }
        lastReset = lastReset.filter { now - $0.value < window }
    }
}
