import ScanBridgeModel
import Synchronization

/// What keeps each device's reads from being recorded, shown as the device's `error` while it
/// lasts: reads waiting for a journal that cannot be written, reads dropped past a bound, or
/// both. A device in `error` for another reason (its driver's) is left as its driver set it,
/// and a device goes back to `ready` only from an error set here.
final class ReadTrouble: Sendable {
    private struct Entry {
        /// Why the journal cannot be written, while this device's reads wait for it.
        var waiting: String?
        var dropping = false
        /// The sentence last shown, to know the device's error is ours.
        var shown: String?
    }

    static let dropping = "reads arrive faster than they can be recorded; the newest are dropped"

    private let registry: DeviceRegistry
    private let entries = Mutex<[String: Entry]>([:])

    init(registry: DeviceRegistry) {
        self.registry = registry
    }

    /// The device's reads wait for the journal for `reason`, or (nil) no longer do.
    func waiting(_ deviceID: String, reason: String?) {
        update(deviceID) { $0.waiting = reason }
    }

    /// The device's reads are dropped past a bound, or (false) no longer are.
    func dropping(_ deviceID: String, _ dropping: Bool) {
        update(deviceID) { $0.dropping = dropping }
    }

    static func sentence(waiting: String?, dropping: Bool) -> String? {
        switch (waiting, dropping) {
        case (let reason?, false): "reads are waiting: the journal cannot be written (\(reason))"
        case (let reason?, true): "reads are waiting: the journal cannot be written (\(reason)); the newest are dropped"
        case (nil, true): Self.dropping
        case (nil, false): nil
        }
    }

    private func update(_ deviceID: String, _ change: (inout Entry) -> Void) {
        // Under the lock, so two lanes' reports reach the registry in the order they were made.
        entries.withLock { entries in
            var entry = entries[deviceID] ?? Entry()
            change(&entry)
            let sentence = Self.sentence(waiting: entry.waiting, dropping: entry.dropping)
            defer { entries[deviceID] = sentence == nil ? nil : entry }
            guard var device = registry.device(deviceID), sentence != entry.shown else { return }
            let ours = device.state == .error && device.error == entry.shown && entry.shown != nil
            if let sentence, device.state == .ready || ours {
                device.state = .error
                device.error = sentence
                entry.shown = sentence
                registry.update(device)
            } else if sentence == nil, ours {
                device.state = .ready
                device.error = nil
                registry.update(device)
            }
        }
    }
}
