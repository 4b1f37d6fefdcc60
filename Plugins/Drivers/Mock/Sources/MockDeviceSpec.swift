import ScanBridgeCore

/// A mock device to attach when the driver starts (`--mock KIND[:ID]` or the config file).
public struct MockDeviceSpec: Sendable, Hashable {
    public var kind: DeviceKind
    /// The id after `mock:`; `<kind>-<n>` when nil.
    public var id: String?
    public var name: String?
    /// Scans to play on the device, if any.
    public var script: MockScript?
    /// Play the script again from the start when it ends.
    public var loop: Bool

    public init(kind: DeviceKind, id: String? = nil, name: String? = nil, script: MockScript? = nil, loop: Bool = false) {
        self.kind = kind
        self.id = id
        self.name = name
        self.script = script
        self.loop = loop
    }

    /// Parses `KIND[:ID]` as given to `--mock`.
    public init(option: String) throws(ScanBridgeError) {
        let parts = option.split(separator: ":", maxSplits: 1).map(String.init)
        guard let first = parts.first, let kind = DeviceKind(rawValue: first) else {
            throw .invalidParams("--mock takes KIND[:ID] with KIND one of nfc, barcode, qr; got '\(option)'", field: "mock")
        }
        self.init(kind: kind, id: parts.count > 1 ? parts[1] : nil)
    }
}
