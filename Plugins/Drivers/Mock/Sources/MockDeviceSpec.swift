import ScanBridgeCore
package import ScanBridgeModel

/// A mock device to attach when the driver starts (`--mock KIND[:ID]` or the config file).
package struct MockDeviceSpec: Sendable, Hashable {
    package var kind: DeviceKind
    /// The id after `mock:`; `<kind>-<n>` when nil.
    package var id: String?
    package var name: String?
    /// Scans to play on the device, if any.
    package var script: MockScript?
    /// Play the script again from the start when it ends.
    package var loop: Bool

    package init(kind: DeviceKind, id: String? = nil, name: String? = nil, script: MockScript? = nil, loop: Bool = false)
        throws(ScanBridgeError)
    {
        // A looping script that never waits would flood the pipeline as fast as it can run.
        if loop, let script, script.duration < .milliseconds(10) {
            throw .invalidParams("a looping mock script must wait at least 10 ms per pass", field: "script")
        }
        self.kind = kind
        self.id = id
        self.name = name
        self.script = script
        self.loop = loop
    }

    /// Parses `KIND[:ID]` as given to `--mock`.
    package init(option: String) throws(ScanBridgeError) {
        let parts = option.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard let first = parts.first, let kind = DeviceKind(rawValue: first), parts.count == 1 || !parts[1].isEmpty else {
            throw .invalidParams("--mock takes KIND[:ID] with KIND one of nfc, barcode, qr; got '\(option)'", field: "mock")
        }
        try self.init(kind: kind, id: parts.count > 1 ? parts[1] : nil)
    }
}
