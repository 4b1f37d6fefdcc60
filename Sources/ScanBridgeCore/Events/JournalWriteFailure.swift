package import ScanBridgeModel

/// The journal could not write for a reason that passes (a full disk, the database locked by
/// another process, an I/O error), as opposed to a bad event. A device's reads wait for it in
/// their lane and are committed when writing works again (`ReadSpool`); a client that injected
/// the read is answered `unavailable` and may retry itself.
package struct JournalWriteFailure: Error, Sendable, CustomStringConvertible {
    /// A few words for a device's error sentence: "disk full", "I/O error".
    package var reason: String
    /// What a client is answered.
    package var error: ScanBridgeError

    package init(reason: String, error: ScanBridgeError) {
        self.reason = reason
        self.error = error
    }

    package var description: String { error.message }
}
