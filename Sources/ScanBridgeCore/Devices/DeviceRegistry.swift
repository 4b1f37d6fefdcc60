import ScanBridgeModel
import Synchronization

/// Every device the drivers reported, in the order they first appeared, with its state.
/// Changes are announced to subscribers as `device.added`, `device.removed`, `device.changed`.
package final class DeviceRegistry: Sendable {
    private struct State {
        var order: [String] = []
        var devices: [String: Device] = [:]
    }

    private let state = Mutex(State())
    private let publisher: Publisher

    package init(publisher: Publisher) {
        self.publisher = publisher
    }

    package var devices: [Device] {
        state.withLock { state in state.order.compactMap { state.devices[$0] } }
    }

    package func device(_ id: String) -> Device? {
        state.withLock { $0.devices[id] }
    }

    /// A device appeared (or came back after being gone) or changed.
    package func update(_ device: Device) {
        let previous: Device? = state.withLock { state in
            let previous = state.devices[device.id]
            if previous == nil { state.order.append(device.id) }
            state.devices[device.id] = device
            return previous
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

    /// The device was unplugged: it stays listed as `gone`.
    package func markGone(_ id: String) {
        guard var device = self.device(id), device.state != .gone else { return }
        device.state = .gone
        device.error = nil
        update(device)
    }
}
