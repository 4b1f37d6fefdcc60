package import ScanBridgeModel
import Synchronization

/// Every device the drivers reported, in the order they first appeared, with its state.
/// Changes are announced to subscribers as `device.added`, `device.removed`, `device.changed`.
///
/// A device that went stays listed as `gone`, so a client sees what was unplugged; past
/// `goneKept` gone devices, the one gone longest is forgotten. Devices that come and go under
/// new ids (a hostile USB device, a test rig) then cannot grow the list without bound.
package final class DeviceRegistry: Sendable {
    private struct State {
        var order: [String] = []
        var devices: [String: Device] = [:]
        /// The gone devices' ids, the one gone longest first.
        var gone: [String] = []
    }

    private let state = Mutex(State())
    private let failureWatcher = Mutex<(@Sendable (Device) -> Void)?>(nil)
    private let publisher: Publisher
    private let metrics: ScanMetrics
    /// How many gone devices stay listed.
    package let goneKept: Int

    package init(publisher: Publisher, metrics: ScanMetrics = .none, goneKept: Int = 64) {
        self.publisher = publisher
        self.metrics = metrics
        self.goneKept = goneKept
    }

    package var devices: [Device] {
        state.withLock { state in state.order.compactMap { state.devices[$0] } }
    }

    package func device(_ id: String) -> Device? {
        state.withLock { $0.devices[id] }
    }

    /// Calls `watcher` each time a device goes into `error` (the automatic reset's count).
    /// It must return at once.
    package func watchFailures(_ watcher: @escaping @Sendable (Device) -> Void) {
        failureWatcher.withLock { $0 = watcher }
    }

    /// A device appeared (or came back after being gone) or changed.
    package func update(_ device: Device) {
        let previous: Device? = state.withLock { state in
            let previous = state.devices[device.id]
            if previous == nil { state.order.append(device.id) }
            state.devices[device.id] = device
            if previous?.state == .gone { state.gone.removeAll { $0 == device.id } }
            if device.state == .gone { forgetting(past: device.id, in: &state) }
            // Under the lock, so that two updates at once leave the gauges as the list is.
            metrics.devicesListed(state.devices.values)
            return previous
        }
        if device.state == .error, previous?.state != .error {
            metrics.deviceFailed(kind: device.kind, driver: device.driver)
            failureWatcher.withLock { $0 }?(device)
        }
        if previous?.state == .gone, device.state != .gone {
            metrics.deviceReconnected(kind: device.kind, driver: device.driver)
        }
        let wasPresent = previous.map { $0.state != .gone } ?? false
        let isPresent = device.state != .gone
        if isPresent && !wasPresent {
            publisher.publish(.deviceAdded(device), about: device)
        } else if wasPresent && !isPresent {
            publisher.publish(.deviceRemoved(device), about: device)
        } else if isPresent && previous != device {
            publisher.publish(.deviceChanged(device), about: device)
        }
    }

    /// Notes `id` as the latest gone, and forgets the one gone longest past `goneKept`.
    private func forgetting(past id: String, in state: inout State) {
        state.gone.append(id)
        guard state.gone.count > goneKept else { return }
        let forgotten = state.gone.removeFirst()
        state.devices[forgotten] = nil
        state.order.removeAll { $0 == forgotten }
    }

    /// The device was unplugged: it stays listed as `gone` (the latest `goneKept` of them).
    package func markGone(_ id: String) {
        guard var device = self.device(id), device.state != .gone else { return }
        device.state = .gone
        device.error = nil
        update(device)
    }
}
