public import ScanBridgeModel

/// A driver that can tell the person at the device how a read it produced was resolved:
/// a beep and a green or red LED on an NFC reader, say. Optional: the host calls it only
/// for drivers that adopt it, and the core knows nothing of how a driver signals.
public protocol DeviceFeedback: Sendable {
    /// Called once for every read this driver produced, after the read's event was resolved
    /// and recorded (or could not be recorded: then the resolution is an `error`).
    ///
    /// Called on the cooperative pool in the driver's read order: return at once and do any
    /// device I/O on the driver's own thread. A device that cannot signal is not an error.
    func resolved(deviceID: String, resolution: Resolution)
}

/// What a resolution means to the person who scanned, for drivers that can only signal
/// "yes", "no" or "read": the one mapping of every status docs/protocol.md defines.
public enum FeedbackVerdict: String, Sendable, Hashable, CaseIterable {
    /// The code or card was recognised: `identified`, `linked` (card-link), `found` (lookups).
    case accepted
    /// Recognised as not acceptable, or not at all: `blocked`, `inactive`, `unknown`,
    /// `conflict`, `not_found`, `invalid`, and failures (`error`, `timeout`).
    case refused
    /// Read, with no verdict: `unhandled` and any status this build does not know
    /// (an out-of-process handler's own words).
    case read

    public init(_ resolution: Resolution) {
        switch resolution.status {
        case "identified", "linked", "found": self = .accepted
        case "blocked", "inactive", "unknown", "conflict", "unverified", "not_found", "invalid", "error", "timeout":
            self = .refused
        default: self = .read
        }
    }
}
