import ScanBridgeCore
import ScanBridgeModel
import ScanBridgeRPC
import ScanBridgeServer

/// Where an event stream's subscription delivers: each event and notice framed as a
/// Server-Sent Event into the stream's outbox, under the outbox's bounds, as a socket's
/// subscriptions deliver into theirs. A reader sees each event as its reader view.
final class EventStreamSink: SubscriptionSink {
    let outbox: Outbox
    let seesWholeEvents: Bool
    private let onOverflow: @Sendable () -> Void

    init(outbox: Outbox, role: Role, onOverflow: @escaping @Sendable () -> Void) {
        self.outbox = outbox
        self.seesWholeEvents = role.seesWholeEvents
        self.onOverflow = onOverflow
    }

    func offer(_ event: JournaledEvent, for subscription: Subscription) -> Bool {
        outbox.offer(framed: Self.frame(seesWholeEvents ? event : event.readerView), for: subscription)
    }

    func offerReplayed(_ event: JournaledEvent, for subscription: Subscription) -> Bool {
        outbox.offerReplayed(framed: Self.frame(seesWholeEvents ? event : event.readerView), for: subscription)
    }

    func waitForRoom(for subscription: Subscription) async throws {
        try await outbox.waitForRoom(for: subscription)
    }

    func notify(_ notice: SubscriptionNotice, for subscription: Subscription) -> Bool {
        outbox.offer(framed: Self.frame(notice), for: subscription)
    }

    /// The stream ends after `event: overflow`: its reader reconnects with `Last-Event-ID`.
    func overflowed(_ subscription: Subscription, dropped: Int) {
        outbox.enqueue(Self.frame(event: "overflow", data: Array(#"{"dropped":\#(dropped)}"#.utf8)))
        onOverflow()
    }

    /// `id: <seq>`, `event: scan`, `data: <ScanEvent>`.
    static func frame(_ event: JournaledEvent) -> [UInt8] {
        frame(event: "scan", data: event.json, id: event.seq)
    }

    static func frame(_ notice: SubscriptionNotice) -> [UInt8] {
        switch notice {
        case .deviceAdded(let device): frame(event: "device.added", data: json(device))
        case .deviceRemoved(let device): frame(event: "device.removed", data: json(device))
        case .deviceChanged(let device): frame(event: "device.changed", data: json(device))
        case .gap(let from, let to): frame(event: "gap", data: Array(#"{"from":\#(from),"to":\#(to)}"#.utf8))
        }
    }

    /// A comment: keeps proxies from cutting an idle stream.
    static let keepAlive = Array(": keep-alive\n\n".utf8)

    /// One event; `data` is JSON, which holds no line break.
    static func frame(event: String, data: [UInt8], id: UInt64? = nil) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(data.count + 48)
        if let id { out.append(contentsOf: "id: \(id)\n".utf8) }
        out.append(contentsOf: "event: \(event)\ndata: ".utf8)
        out.append(contentsOf: data)
        out.append(contentsOf: "\n\n".utf8)
        return out
    }

    private static func json(_ device: Device) -> [UInt8] {
        (try? JSONWriter.encode(device)) ?? Array("null".utf8)
    }
}
