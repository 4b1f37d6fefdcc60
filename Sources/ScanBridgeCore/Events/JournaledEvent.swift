import ScanBridgeModel

/// An event as the journal stored it: its `seq`, the fields subscriptions filter on, and
/// its JSON, encoded once and sent as is to every subscriber and every replay.
package struct JournaledEvent: Sendable, Hashable {
    package let seq: UInt64
    package let kind: DeviceKind
    package let device: String
    /// The `ScanEvent` as UTF-8 JSON, seq included.
    package let json: [UInt8]

    package init(seq: UInt64, kind: DeviceKind, device: String, json: [UInt8]) {
        self.seq = seq
        self.kind = kind
        self.device = device
        self.json = json
    }
}
