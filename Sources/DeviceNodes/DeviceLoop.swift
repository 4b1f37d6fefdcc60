import Foundation

/// A device's life on a thread of its own (a `NodeReadLoop`, a camera's capture loop), as
/// the daemon (`--device`) or the discovery of its node starts and ends it.
public protocol DeviceLoop: Sendable {
    /// Signalled to end the loop; its thread then ends promptly.
    var stop: StopSignal { get }
    /// The loop itself, on the thread `start(name:)` makes; returns when stopped.
    func run()
}

extension DeviceLoop {
    /// Starts the loop on a new thread named `name`.
    public func start(name: String) {
        let thread = Thread { self.run() }
        thread.name = name
        thread.start()
    }
}

extension NodeReadLoop: DeviceLoop {}
