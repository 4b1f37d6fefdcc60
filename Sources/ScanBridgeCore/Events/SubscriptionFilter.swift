package import ScanBridgeModel

/// Which events and device notices a subscription wants (docs/protocol.md `events.subscribe`).
package struct SubscriptionFilter: Sendable, Hashable {
    /// Kinds of reading; nil means all.
    package var kinds: Set<DeviceKind>?
    /// Device ids; nil means all.
    package var devices: Set<String>?

    package init(kinds: Set<DeviceKind>? = nil, devices: Set<String>? = nil) {
        self.kinds = kinds
        self.devices = devices
    }

    package static let all = SubscriptionFilter()

    package func matches(kind: DeviceKind, device: String) -> Bool {
        (kinds?.contains(kind) ?? true) && (devices?.contains(device) ?? true)
    }

    package func matches(_ event: JournaledEvent) -> Bool {
        matches(kind: event.kind, device: event.device)
    }

    package func matches(_ device: Device) -> Bool {
        matches(kind: device.kind, device: device.id)
    }
}
