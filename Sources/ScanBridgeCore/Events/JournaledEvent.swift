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

/// Counts the bytes of events read for one answer against a limit. The first is always
/// admitted, so a reader makes progress past an event larger than the limit.
package struct ByteBudget {
    package let limit: Int
    private var used = 0
    private var admitted = false

    package init(_ limit: Int) {
        self.limit = limit
    }

    /// Counts `bytes` and says yes, or says no when they would pass the limit.
    package mutating func admits(_ bytes: Int) -> Bool {
        guard !admitted || used + bytes <= limit else { return false }
        used += bytes
        admitted = true
        return true
    }
}

extension Sequence<JournaledEvent> {
    /// The events, in order, while their JSON fits `maxBytes`.
    package func prefix(maxBytes: Int) -> [JournaledEvent] {
        var budget = ByteBudget(maxBytes)
        var events: [JournaledEvent] = []
        for event in self {
            guard budget.admits(event.json.count) else { break }
            events.append(event)
        }
        return events
    }
}
