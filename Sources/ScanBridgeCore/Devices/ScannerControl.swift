import ScanBridgeModel

/// What the protocol's `devices.claim`, `devices.release` and `devices.candidates` need from
/// scanner discovery: the operator's say over which discovered USB devices are scanners,
/// applied at once and kept across restarts. The core knows nothing of udev or of the store.
public protocol ScannerControl: Sendable {
    /// Takes the device (a device id as listed, or `vvvv:pppp`) as a scanner from now on.
    func claim(_ id: String) async throws -> ScannerOverrides
    /// Never takes it again, even from a scanner maker; undoes a claim.
    func release(_ id: String) async throws -> ScannerOverrides
    /// Every node discovery sees that a scanner driver could read, with whether it is read and why.
    func candidates() -> [ScannerCandidate]
    /// The claims and releases in force now.
    var overrides: ScannerOverrides { get }
}

/// The claims and releases in force: the config file's, with the operator's later choices over them.
public struct ScannerOverrides: Sendable, Hashable, Codable {
    /// `vvvv:pppp` and device ids, lowercase, sorted.
    public var claimed: [String]
    public var released: [String]

    public init(claimed: [String], released: [String]) {
        self.claimed = claimed
        self.released = released
    }
}

/// A node discovery sees, as `devices.candidates` lists it.
public struct ScannerCandidate: Sendable, Hashable, Codable {
    /// The device id it has (or would have) in `devices.list`.
    public var id: String
    public var driver: String
    /// The device's name, when it has one (left out of the JSON otherwise, as `usb`).
    public var name: String?
    /// `vvvv:pppp`, when the node belongs to a USB (or input) device with ids.
    public var usb: String?
    public var path: String
    /// Whether the driver reads it now.
    public var read: Bool
    /// Why it is read or not: `made by …`, `named …`, `claimed by the operator`,
    /// `claimed in the config`, `released by the operator`, `released in the config`, `not a scanner`.
    public var reason: String

    public init(id: String, driver: String, name: String?, usb: String?, path: String, read: Bool, reason: String) {
        self.id = id
        self.driver = driver
        self.name = name
        self.usb = usb
        self.path = path
        self.read = read
        self.reason = reason
    }
}
