import ScanBridgeModel

/// An event as the journal stored it: its `seq`, the fields subscriptions filter on, and
/// its JSON, encoded once and sent as is to every subscriber and every replay.
public struct JournaledEvent: Sendable, Hashable {
    public let seq: UInt64
    public let kind: DeviceKind
    public let device: String
    /// The `ScanEvent` as UTF-8 JSON, seq included.
    public let json: [UInt8]

    public init(seq: UInt64, kind: DeviceKind, device: String, json: [UInt8]) {
        self.seq = seq
        self.kind = kind
        self.device = device
        self.json = json
    }
}
