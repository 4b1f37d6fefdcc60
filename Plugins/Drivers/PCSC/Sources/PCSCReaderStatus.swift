import Logging
import ScanBridgeCore
import ScanBridgeModel
import Synchronization

/// One reader's device as last reported, shared by the session's thread (busy, mute cards,
/// readiness) and the reader's card worker (a tap's read or its trouble). Each change is
/// reported under the lock, so reports go out in the order the states were set.
final class PCSCReaderStatus: Sendable {
    let id: String
    private let device: Mutex<Device>
    private let events: AsyncStream<DriverEvent>.Continuation
    private let logger: Logger

    init(_ device: Device, events: AsyncStream<DriverEvent>.Continuation, logger: Logger) {
        id = device.id
        self.device = Mutex(device)
        self.events = events
        self.logger = logger
    }

    var current: Device { device.withLock { $0 } }
    var state: Device.State { device.withLock { $0.state } }

    /// Reports the reader in `state` (with `error`) when that is a change.
    func set(_ state: Device.State, error: String? = nil) {
        let changed = device.withLock { device in
            guard device.state != state || device.error != error else { return false }
            device.state = state
            device.error = error
            events.yield(.device(device))
            return true
        }
        guard changed else { return }
        logger.info("reader \(state.rawValue)\(error.map { ": \($0)" } ?? "")", metadata: ["device.id": "\(id)"])
    }

    /// Reports a tap's read; the reader `ready` first when it was not.
    func read(_ read: RawRead) {
        if state != .ready { set(.ready) }
        events.yield(.read(read))
    }

    /// The reader went (or its session ended).
    func gone() {
        events.yield(.gone(deviceID: id))
    }
}
