/// A device's life on a thread of its own (a `NodeReadLoop`, a camera's capture loop), as
/// the discovery of its node starts and ends it.
public protocol DeviceLoop: Sendable {
    /// Signalled to end the loop; its thread then ends promptly.
    var stop: StopSignal { get }
    /// Starts the loop on a new thread named `name`.
    func start(name: String)
}

extension NodeReadLoop: DeviceLoop {}
