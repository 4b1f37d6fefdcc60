package import ScanBridgeModel
import Synchronization

/// An event as the journal stored it: its `seq`, the fields subscriptions filter on, and
/// its JSON, encoded once and sent as is to every subscriber and every replay.
package struct JournaledEvent: Sendable, Hashable {
    package let seq: UInt64
    package let kind: DeviceKind
    package let device: String
    /// The `ScanEvent` as UTF-8 JSON, seq included.
    package let json: [UInt8]
    /// A tap's reader view, made on first use and shared by every copy of this value; none
    /// for other events, which need none, so they cost no allocation on their way.
    private let readerCache: ReaderCache?

    package init(seq: UInt64, kind: DeviceKind, device: String, json: [UInt8]) {
        self.seq = seq
        self.kind = kind
        self.device = device
        self.json = json
        self.readerCache = kind == .nfc ? ReaderCache() : nil
    }

    /// The event as the `reader` role sees it (`ScanEvent.readerView()`). Masked once per event,
    /// however many readers it goes to: the first asks, the others get the same bytes. Only a
    /// tap carries a card, so any other event is its own reader view and costs nothing.
    package var readerView: JournaledEvent {
        guard let readerCache else { return self }
        return readerCache.view.withLock { cached in
            if let cached { return cached }
            let view = JournaledEvent(seq: seq, kind: kind, device: device, json: Self.readerJSON(json, seq: seq))
            cached = view
            return view
        }
    }

    /// The masked JSON. A journal stores only what `ScanEvent.json()` wrote, so it always
    /// parses; were it not to, the reader gets the bare numbers rather than an unmasked card.
    private static func readerJSON(_ json: [UInt8], seq: UInt64) -> [UInt8] {
        guard let event = event(json) else {
            return Array(#"{"seq":\#(seq),"kind":"nfc","resolution":{"handler":null,"status":"error"}}"#.utf8)
        }
        return event.readerView().json()
    }

    /// The event `rewrite` makes of this one, under the same `seq`; nil when it changes nothing.
    package func rewritten(_ rewrite: (ScanEvent) -> ScanEvent?) -> JournaledEvent? {
        guard let event = Self.event(json), var changed = rewrite(event) else { return nil }
        changed.seq = seq
        return JournaledEvent(seq: seq, kind: kind, device: device, json: changed.json())
    }

    private static func event(_ json: [UInt8]) -> ScanEvent? {
        guard let value = try? JSONValue(parsing: json) else { return nil }
        return try? ScanEvent(wire: value)
    }

    package static func == (lhs: JournaledEvent, rhs: JournaledEvent) -> Bool {
        lhs.seq == rhs.seq && lhs.kind == rhs.kind && lhs.device == rhs.device && lhs.json == rhs.json
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(seq)
        hasher.combine(json)
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

/// Where a `JournaledEvent` keeps its reader view: a reference, so the value stays cheap to copy.
private final class ReaderCache: Sendable {
    let view = Mutex<JournaledEvent?>(nil)
}
