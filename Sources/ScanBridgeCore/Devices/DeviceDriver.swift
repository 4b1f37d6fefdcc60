public import ScanBridgeModel

/// A driver plugin: it owns a family of devices (PC/SC readers, evdev scanners, mock
/// devices…), follows their hotplug, and reads from them.
///
/// Blocking C calls belong on the driver's own threads, never on the cooperative pool;
/// the driver hands what happens to the async world through the stream of `events()`.
public protocol DeviceDriver: Sendable {
    /// The driver's name on the wire (`mock`, `pcsc`, `evdev`…).
    var name: String { get }

    /// Starts the driver: devices appear, change, go and read, until the stream is
    /// cancelled. A stream that ends on its own means the driver stopped; the host
    /// restarts it with backoff.
    func events() -> AsyncStream<DriverEvent>

    /// Its reads can wait for room: a device's lane that is full holds up the driver's
    /// later events instead of dropping the read. Only for what no person or device is behind
    /// (a mock device's script); a scanner's reads come when they come.
    var readsWait: Bool { get }

    /// Returns once what the driver holds is given back after its stream ended for good (a
    /// claimed USB interface, and the kernel driver it was taken from), so that the daemon
    /// exits only then. At once by default: closing a node gives back all it held.
    func finish() async
}

extension DeviceDriver {
    public var readsWait: Bool { false }

    public func finish() async {}
}

/// What a driver reports.
public enum DriverEvent: Sendable {
    /// A device appeared, came back, or changed (state, name, identity).
    case device(Device)
    /// A device was unplugged.
    case gone(deviceID: String)
    /// A device read something.
    case read(RawRead)
    /// Runs once every event before it has been applied (lets a driver wait for the registry).
    case barrier(@Sendable () -> Void)
}
