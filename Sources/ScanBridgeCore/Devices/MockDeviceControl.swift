public import ScanBridgeModel

/// What the protocol's `mock.*` methods need from the mock driver. Both return once the
/// registry shows the change, so a `devices.list` right after sees it.
public protocol MockDeviceControl: Sendable {
    /// Attaches a mock device, or brings back a `gone` one with the same id (a replug).
    func attach(kind: DeviceKind, id: String?, name: String?) async throws(ScanBridgeError) -> Device
    /// Unplugs a mock device: it stays listed as `gone`.
    func detach(id: String) async throws(ScanBridgeError)
}
