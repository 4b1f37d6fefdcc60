/// `devices.reset`: a USB port reset of the device behind a listed device, which then comes
/// back under the same id and is read again by its driver.
public protocol DeviceResetting: Sendable {
    /// Resets the USB device behind device `id`. Throws `notFound` for an unknown id,
    /// `invalidParams` for a device not on USB, `unavailable` when the reset cannot be done.
    func reset(_ id: String) async throws -> DeviceResetOutcome
}

/// What `devices.reset` answers.
public struct DeviceResetOutcome: Sendable, Hashable, Codable {
    /// The device reset, as `devices.list` shows it.
    public var id: String
    /// The USB device reset: `vvvv:pppp`, and its node.
    public var usb: String
    public var path: String
    /// Whether the device came back as a new USB device (other descriptors, another address):
    /// its driver finds it again through discovery.
    public var reenumerated: Bool

    public init(id: String, usb: String, path: String, reenumerated: Bool) {
        self.id = id
        self.usb = usb
        self.path = path
        self.reenumerated = reenumerated
    }
}
