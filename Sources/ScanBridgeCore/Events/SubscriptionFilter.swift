import ScanBridgeModel

/// Which events and device notices a subscription wants (docs/protocol.md `events.subscribe`).
public struct SubscriptionFilter: Sendable, Hashable {
    /// Kinds of reading; nil means all.
    public var kinds: Set<DeviceKind>?
    /// Device ids; nil means all.
    public var devices: Set<String>?

    public init(kinds: Set<DeviceKind>? = nil, devices: Set<String>? = nil) {
        self.kinds = kinds
        self.devices = devices
    }

    public static let all = SubscriptionFilter()

    public func matches(kind: DeviceKind, device: String) -> Bool {
        (kinds?.contains(kind) ?? true) && (devices?.contains(device) ?? true)
    }

    public func matches(_ event: JournaledEvent) -> Bool {
        matches(kind: event.kind, device: event.device)
    }

    public func matches(_ device: Device) -> Bool {
        matches(kind: device.kind, device: device.id)
    }
}
